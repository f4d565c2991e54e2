import { createHash } from 'node:crypto';
import {
  type Embedder,
  MemoryStoreError,
  type ReindexProgress,
  type ReindexResult,
  type VectorSpace,
} from '@nexus/memory';
import { QdrantClient } from '@qdrant/js-client-rest';
import { guard } from './qdrant-errors.ts';
import { openQdrantMemoryStore } from './qdrant-memory-store.ts';
import { sparseDocumentVector } from './sparse-bm25.ts';

export interface ReindexQdrantStoreOptions {
  client?: QdrantClient;
  url?: string;
  apiKey?: string;
  /** The configured collection name; after the first reindex it is an alias. */
  collection: string;
  /** The new embedder; undefined switches to lexical (sparse BM25) only. */
  embedder: Embedder | undefined;
  batchSize?: number;
  onProgress?: (progress: ReindexProgress) => void;
  abortSignal?: AbortSignal;
}

type Point = { id: string | number; payload?: Record<string, unknown> | null };

/**
 * Copies every point into a new collection `<collection>--<target hash>` with the new embedder's
 * dense vectors (payload and sparse BM25 vectors carried over), then points the configured name
 * at it with a collection alias. The live collection is only read until the switch, so a crash
 * leaves the store on the old embedder; running again resumes (points already copied with the
 * same content hash are skipped). The first switch turns the configured name from a collection
 * into an alias: the old collection is deleted, then the alias created. If the process dies
 * between those two calls, running the same reindex again finds the finished copy and creates
 * the alias (the copy is complete before the original is deleted). Later switches are one atomic
 * alias change, after which the previous copy is deleted.
 */
export async function reindexQdrantStore(options: ReindexQdrantStoreOptions): Promise<ReindexResult> {
  const client = options.client ?? new QdrantClient({ url: options.url, apiKey: options.apiKey });
  const name = options.collection;
  const to: VectorSpace | undefined = options.embedder
    ? { embedderId: options.embedder.id, dimensions: options.embedder.dimensions }
    : undefined;
  const targetName = `${name}--${createHash('sha256')
    .update(JSON.stringify(to ?? null))
    .digest('hex')
    .slice(0, 12)}`;
  const { aliases } = await guard('list aliases', () => client.getAliases());
  const aliased = aliases.find((alias) => alias.alias_name === name)?.collection_name;
  const nameIsCollection =
    !aliased && (await guard('read collection', () => client.collectionExists(name))).exists;
  const source = aliased ?? (nameIsCollection ? name : undefined);
  if (!source) {
    // Interrupted between deleting the original and creating the alias: the copy is complete.
    if ((await client.collectionExists(targetName)).exists) {
      await switchAlias(client, name, targetName, undefined);
      const total = (await client.count(targetName, { exact: true })).count;
      return { from: undefined, to, embedded: 0, total };
    }
    throw new MemoryStoreError({ message: `No Qdrant collection or alias named "${name}" to re-index.` });
  }
  const from = await vectorSpaceOf(client, source);
  const total = (await guard('count', () => client.count(source, { exact: true }))).count;
  if (source === targetName || (from?.embedderId === to?.embedderId && from?.dimensions === to?.dimensions)) {
    options.onProgress?.({ done: total, total });
    return { from, to, embedded: 0, total };
  }
  // Creates the target collection and its payload indexes (idempotent on resume).
  await openQdrantMemoryStore({ client, collection: targetName, ...(to ? { vectors: to } : {}) });
  const embedded = await copyPoints(client, source, targetName, options, total);
  await removeDeleted(client, source, targetName);
  await switchAlias(client, name, targetName, nameIsCollection ? name : undefined);
  if (!nameIsCollection) await guard('delete old collection', () => client.deleteCollection(source));
  return { from, to, embedded, total };
}

async function vectorSpaceOf(client: QdrantClient, collection: string): Promise<VectorSpace | undefined> {
  const info = await guard('read collection', () => client.getCollection(collection));
  const dense = (info.config.params.vectors as Record<string, { size?: number }> | undefined)?.dense;
  const embedderId = (info.config as { metadata?: { embedderId?: string } }).metadata?.embedderId;
  return dense?.size ? { embedderId: embedderId ?? 'unknown', dimensions: dense.size } : undefined;
}

async function copyPoints(
  client: QdrantClient,
  source: string,
  target: string,
  options: ReindexQdrantStoreOptions,
  total: number,
): Promise<number> {
  const limit = Math.max(1, options.batchSize ?? 64);
  let offset: string | number | undefined;
  let done = 0;
  let embedded = 0;
  options.onProgress?.({ done, total });
  do {
    options.abortSignal?.throwIfAborted();
    const page = await guard('scroll', () =>
      client.scroll(source, { limit, with_payload: true, with_vector: false, ...(offset ? { offset } : {}) }),
    );
    const points = page.points as Point[];
    const copied = await guard('retrieve', () =>
      client.retrieve(target, {
        ids: points.map((point) => point.id),
        with_payload: true,
        with_vector: false,
      }),
    );
    const copiedHash = new Map(copied.map((point) => [String(point.id), point.payload?.hash]));
    const pending = points.filter((point) => copiedHash.get(String(point.id)) !== point.payload?.hash);
    if (pending.length > 0) {
      const contents = pending.map((point) => String(point.payload?.content ?? ''));
      const dense = options.embedder
        ? await options.embedder.embed({
            texts: contents,
            ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
          })
        : undefined;
      const upserts = pending.map((point, index) => {
        const vector: Record<string, number[] | { indices: number[]; values: number[] }> = {};
        const sparse = sparseDocumentVector(contents[index] ?? '');
        if (sparse.indices.length > 0) vector.bm25 = sparse;
        const embedding = dense?.[index];
        if (embedding) vector.dense = Array.from(embedding);
        return { id: point.id, vector, payload: point.payload ?? {} };
      });
      await guard('upsert', () => client.upsert(target, { wait: true, points: upserts }));
      embedded += pending.length;
    }
    done += points.length;
    options.onProgress?.({ done: Math.min(done, total), total });
    offset = (page.next_page_offset ?? undefined) as string | number | undefined;
  } while (offset !== undefined && offset !== null);
  return embedded;
}

/** Points deleted from the source since an interrupted run copied them are not carried over. */
async function removeDeleted(client: QdrantClient, source: string, target: string): Promise<void> {
  let offset: string | number | undefined;
  do {
    const page = await guard('scroll', () =>
      client.scroll(target, {
        limit: 256,
        with_payload: false,
        with_vector: false,
        ...(offset ? { offset } : {}),
      }),
    );
    const ids = page.points.map((point) => point.id);
    const present = await guard('retrieve', () =>
      client.retrieve(source, { ids, with_payload: false, with_vector: false }),
    );
    const kept = new Set(present.map((point) => String(point.id)));
    const gone = ids.filter((id) => !kept.has(String(id)));
    if (gone.length > 0) await guard('delete', () => client.delete(target, { wait: true, points: gone }));
    offset = (page.next_page_offset ?? undefined) as string | number | undefined;
  } while (offset !== undefined && offset !== null);
}

/** Points `alias` at `target`; `deleteCollection` first removes a real collection of that name. */
async function switchAlias(
  client: QdrantClient,
  alias: string,
  target: string,
  deleteCollection: string | undefined,
): Promise<void> {
  if (deleteCollection) {
    await guard('delete original collection', () => client.deleteCollection(deleteCollection));
    await guard('create alias', () =>
      client.updateCollectionAliases({
        actions: [{ create_alias: { alias_name: alias, collection_name: target } }],
      }),
    );
    return;
  }
  const { aliases } = await guard('list aliases', () => client.getAliases());
  const exists = aliases.some((entry) => entry.alias_name === alias);
  await guard('switch alias', () =>
    client.updateCollectionAliases({
      actions: [
        ...(exists ? [{ delete_alias: { alias_name: alias } }] : []),
        { create_alias: { alias_name: alias, collection_name: target } },
      ],
    }),
  );
}
