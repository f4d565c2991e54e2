import { createHash } from 'node:crypto';
import {
  type Embedder,
  MemoryStoreError,
  type ReindexProgress,
  type ReindexResult,
  type VectorSpace,
} from '@nexus/memory';
import type { QdrantClient } from '@qdrant/js-client-rest';
import { copyQdrantPoints, removeDeletedQdrantPoints } from './copy-qdrant-points.ts';
import { qdrantClientFor } from './qdrant-client-for.ts';
import { guard } from './qdrant-errors.ts';
import { openQdrantMemoryStore } from './qdrant-memory-store.ts';

export interface ReindexQdrantStoreOptions {
  client?: QdrantClient;
  url?: string | undefined;
  apiKey?: string | undefined;
  /** The configured collection name; after the first reindex it is an alias. */
  collection: string;
  /** The new embedder; undefined switches to lexical (sparse BM25) only. */
  embedder: Embedder | undefined;
  batchSize?: number;
  onProgress?: (progress: ReindexProgress) => void;
  abortSignal?: AbortSignal;
  /**
   * Runs the final step (a last pass over what changed since the copy, the removal of what was
   * deleted meanwhile, and the alias switch). The background re-index passes the live service's
   * write gate here, so no write of that process lands between the last check and the switch.
   * Default: runs it as it is.
   */
  holdWrites?: <T>(finalStep: () => Promise<T>) => Promise<T>;
  /**
   * Called inside `holdWrites` before the switch, with the name of the collection the configured
   * name is about to point at; what it returns runs right after the switch (still inside). The
   * background re-index opens the hybrid store there and hands the service over after. Also called
   * when the store needs no copy (already on the embedder, or a switch interrupted before).
   */
  beforeSwitch?: (collection: string) => Promise<() => void>;
}

/**
 * Copies every point into a new collection `<collection>--<target hash>` with the new embedder's
 * dense vectors (payload and sparse BM25 vectors carried over), then points the configured name
 * at it with a collection alias. The live collection is only read until the switch, so a crash
 * leaves the store on the old embedder; running again resumes (points already copied with the
 * same content hash are skipped). Writes to the live collection during the copy are followed:
 * after the copy a second pass carries over what was added or changed behind it (payload too),
 * and points deleted meanwhile are removed from the copy, both inside `holdWrites` right before
 * the switch. The first switch turns the configured name from a collection into an alias: the old
 * collection is deleted, then the alias created. If the process dies between those two calls,
 * running the same reindex again finds the finished copy and creates the alias (the copy is
 * complete before the original is deleted). Later switches are one atomic alias change, after
 * which the previous copy is deleted.
 */
export async function reindexQdrantStore(options: ReindexQdrantStoreOptions): Promise<ReindexResult> {
  const client = qdrantClientFor(options);
  const name = options.collection;
  const to: VectorSpace | undefined = options.embedder
    ? { embedderId: options.embedder.id, dimensions: options.embedder.dimensions }
    : undefined;
  const targetName = qdrantReindexTarget(name, to);
  const holdWrites = options.holdWrites ?? (<T>(finalStep: () => Promise<T>) => finalStep());
  const handOver = async (collection: string) => (await options.beforeSwitch?.(collection)) ?? (() => {});
  const { aliases } = await guard('list aliases', () => client.getAliases());
  const aliased = aliases.find((alias) => alias.alias_name === name)?.collection_name;
  const nameIsCollection =
    !aliased && (await guard('read collection', () => client.collectionExists(name))).exists;
  const source = aliased ?? (nameIsCollection ? name : undefined);
  if (!source) {
    // Interrupted between deleting the original and creating the alias: the copy is complete.
    if ((await client.collectionExists(targetName)).exists) {
      await holdWrites(async () => {
        const switched = await handOver(targetName);
        await switchAlias(client, name, targetName, undefined);
        switched();
      });
      const total = (await client.count(targetName, { exact: true })).count;
      return { from: undefined, to, embedded: 0, total };
    }
    throw new MemoryStoreError({ message: `No Qdrant collection or alias named "${name}" to re-index.` });
  }
  const from = await vectorSpaceOf(client, source);
  const total = (await guard('count', () => client.count(source, { exact: true }))).count;
  if (source === targetName || (from?.embedderId === to?.embedderId && from?.dimensions === to?.dimensions)) {
    options.onProgress?.({ done: total, total });
    await holdWrites(async () => (await handOver(source))());
    return { from, to, embedded: 0, total };
  }
  // Creates the target collection and its payload indexes (idempotent on resume).
  await openQdrantMemoryStore({ client, collection: targetName, vectors: to });
  const copy = {
    embedder: options.embedder,
    batchSize: options.batchSize ?? 64,
    abortSignal: options.abortSignal,
  };
  options.onProgress?.({ done: 0, total });
  let embedded = await copyQdrantPoints(client, source, targetName, {
    ...copy,
    onPage: (visited) => options.onProgress?.({ done: visited, total: Math.max(total, visited) }),
  });
  await removeDeletedQdrantPoints(client, source, targetName, options.abortSignal);
  await holdWrites(async () => {
    // What was told, changed or deleted while the first pass ran (behind its cursor or after).
    embedded += await copyQdrantPoints(client, source, targetName, copy);
    await removeDeletedQdrantPoints(client, source, targetName, options.abortSignal);
    const switched = await handOver(targetName);
    options.abortSignal?.throwIfAborted();
    await switchAlias(client, name, targetName, nameIsCollection ? name : undefined);
    switched();
  });
  if (!nameIsCollection) await guard('delete old collection', () => client.deleteCollection(source));
  return { from, to, embedded, total };
}

/** The collection a re-index of `collection` for `to` copies into: `<collection>--<hash of to>`. */
export function qdrantReindexTarget(collection: string, to: VectorSpace | undefined): string {
  return `${collection}--${createHash('sha256')
    .update(JSON.stringify(to ?? null))
    .digest('hex')
    .slice(0, 12)}`;
}

/** The embedder a collection's dense vectors come from (its metadata), undefined when it has none. */
export async function vectorSpaceOf(
  client: QdrantClient,
  collection: string,
): Promise<VectorSpace | undefined> {
  const info = await guard('read collection', () => client.getCollection(collection));
  const dense = (info.config.params.vectors as Record<string, { size?: number }> | undefined)?.dense;
  const embedderId = (info.config as { metadata?: { embedderId?: string } }).metadata?.embedderId;
  return dense?.size ? { embedderId: embedderId ?? 'unknown', dimensions: dense.size } : undefined;
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
