import { isDeepStrictEqual } from 'node:util';
import { type Embedder, MemoryStoreError } from '@nexus/memory';
import type { QdrantClient } from '@qdrant/js-client-rest';
import { guard } from './qdrant-errors.ts';
import { sparseDocumentVector } from './sparse-bm25.ts';

type Point = { id: string | number; payload?: Record<string, unknown> | null };
type PointOffset = string | number | undefined;

export interface CopyPointsOptions {
  /** The new embedder; undefined copies the sparse (BM25) vectors only. */
  embedder: Embedder | undefined;
  /** Points read (and texts embedded at most) per request. */
  batchSize: number;
  /** After each page: how many points of the source were visited so far. */
  onPage?: (visited: number) => void;
  abortSignal?: AbortSignal | undefined;
}

/**
 * One pass over the source: every point the target lacks, or holds with other content (hash),
 * is embedded and upserted with its payload; a point with the same content but another payload
 * (a session linked, `lastUsedAt`, a category changed since it was copied) gets the source's
 * payload, without embedding. A second pass right after the first therefore only touches what
 * changed in between. Returns how many points were embedded.
 */
export async function copyQdrantPoints(
  client: QdrantClient,
  source: string,
  target: string,
  options: CopyPointsOptions,
): Promise<number> {
  const limit = Math.max(1, options.batchSize);
  let offset: PointOffset;
  let visited = 0;
  let embedded = 0;
  do {
    options.abortSignal?.throwIfAborted();
    const page = await guard('scroll', () =>
      client.scroll(source, {
        limit,
        with_payload: true,
        with_vector: false,
        ...(offset !== undefined ? { offset } : {}),
      }),
    );
    const points = page.points as Point[];
    const copied = await guard('retrieve', () =>
      client.retrieve(target, {
        ids: points.map((point) => point.id),
        with_payload: true,
        with_vector: false,
      }),
    );
    const copiedPayload = new Map(copied.map((point) => [String(point.id), point.payload ?? {}]));
    const reembed: Point[] = [];
    for (const point of points) {
      const there = copiedPayload.get(String(point.id));
      if (!there || there.hash !== point.payload?.hash) reembed.push(point);
      else if (!isDeepStrictEqual(there, point.payload ?? {}))
        await guard('overwrite payload', () =>
          client.overwritePayload(target, { wait: true, points: [point.id], payload: point.payload ?? {} }),
        );
    }
    if (reembed.length > 0) {
      await upsertEmbedded(client, target, reembed, options);
      embedded += reembed.length;
    }
    visited += points.length;
    options.onPage?.(visited);
    offset = (page.next_page_offset ?? undefined) as PointOffset;
  } while (offset !== undefined && offset !== null);
  return embedded;
}

async function upsertEmbedded(
  client: QdrantClient,
  target: string,
  points: Point[],
  options: CopyPointsOptions,
): Promise<void> {
  const contents = points.map((point) => String(point.payload?.content ?? ''));
  const dense = options.embedder
    ? await options.embedder.embed({
        texts: contents,
        abortSignal: options.abortSignal,
      })
    : undefined;
  if (dense && dense.length !== points.length)
    throw new MemoryStoreError({
      message: `Embedder returned ${dense.length} vectors for ${points.length}.`,
    });
  const upserts = points.map((point, index) => {
    const vector: Record<string, number[] | { indices: number[]; values: number[] }> = {};
    const sparse = sparseDocumentVector(contents[index] ?? '');
    if (sparse.indices.length > 0) vector.bm25 = sparse;
    const embedding = dense?.[index];
    if (embedding) vector.dense = Array.from(embedding);
    return { id: point.id, vector, payload: point.payload ?? {} };
  });
  await guard('upsert', () => client.upsert(target, { wait: true, points: upserts }));
}

/**
 * Removes from the target every point the source no longer has: memories deleted or forgotten
 * (`reset`) after they were copied must not come back with the new collection.
 */
export async function removeDeletedQdrantPoints(
  client: QdrantClient,
  source: string,
  target: string,
  abortSignal?: AbortSignal,
): Promise<number> {
  let offset: PointOffset;
  let removed = 0;
  do {
    abortSignal?.throwIfAborted();
    const page = await guard('scroll', () =>
      client.scroll(target, {
        limit: 256,
        with_payload: false,
        with_vector: false,
        ...(offset !== undefined ? { offset } : {}),
      }),
    );
    const ids = page.points.map((point) => point.id);
    const present = await guard('retrieve', () =>
      client.retrieve(source, { ids, with_payload: false, with_vector: false }),
    );
    const kept = new Set(present.map((point) => String(point.id)));
    const gone = ids.filter((id) => !kept.has(String(id)));
    if (gone.length > 0) await guard('delete', () => client.delete(target, { wait: true, points: gone }));
    removed += gone.length;
    offset = (page.next_page_offset ?? undefined) as PointOffset;
  } while (offset !== undefined && offset !== null);
  return removed;
}
