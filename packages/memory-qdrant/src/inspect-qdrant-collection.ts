import type { VectorSpace } from '@nexus/memory';
import type { QdrantClient } from '@qdrant/js-client-rest';
import { qdrantClientFor } from './qdrant-client-for.ts';
import { guard } from './qdrant-errors.ts';
import { qdrantReindexTarget, vectorSpaceOf } from './reindex-qdrant-store.ts';

export interface QdrantCollectionState {
  /** Whether the configured name is a collection or an alias of one. */
  exists: boolean;
  /** The embedder whose dense vectors it holds; undefined = lexical (sparse BM25) only. */
  vectorSpace: VectorSpace | undefined;
  /** Points in it (0 when it does not exist). */
  total: number;
  /**
   * Points already in the re-index copy for `wanted`, when one exists: how far a re-index got
   * (it resumes from there). Undefined when no copy for `wanted` exists.
   */
  copied: number | undefined;
  /**
   * The configured name is gone but a finished copy for `wanted` exists: a switch was interrupted
   * between deleting the original and creating the alias (re-indexing again completes it).
   */
  interruptedSwitch: boolean;
}

/**
 * What a start would find under the configured name, read only (nothing is created): so the
 * gateway can choose between opening the store on the embedder, re-indexing it first, or
 * finishing an interrupted switch, and `nexus doctor` can say how far a re-index got.
 */
export async function inspectQdrantCollection(options: {
  client?: QdrantClient;
  url?: string | undefined;
  apiKey?: string | undefined;
  collection: string;
  wanted: VectorSpace | undefined;
}): Promise<QdrantCollectionState> {
  const client = qdrantClientFor(options);
  const target = qdrantReindexTarget(options.collection, options.wanted);
  const [{ exists }, copy] = await Promise.all([
    guard('read collection', () => client.collectionExists(options.collection)),
    guard('read collection', () => client.collectionExists(target)),
  ]);
  const copied = copy.exists
    ? (await guard('count', () => client.count(target, { exact: true }))).count
    : undefined;
  if (!exists) return { exists, vectorSpace: undefined, total: 0, copied, interruptedSwitch: copy.exists };
  const [vectorSpace, { count }] = await Promise.all([
    vectorSpaceOf(client, options.collection),
    guard('count', () => client.count(options.collection, { exact: true })),
  ]);
  return { exists, vectorSpace, total: count, copied, interruptedSwitch: false };
}
