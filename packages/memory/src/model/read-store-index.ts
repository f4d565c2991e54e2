import { existsSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import type { VectorSpace } from './memory-store.ts';

export interface StoreIndex {
  totalMemories: number;
  /** The embedder the store's vectors come from; undefined for a lexical-only store. */
  vectorSpace: VectorSpace | undefined;
  /** Memories with no vector although the store has vectors (all of them in a lexical store). */
  withoutVectors: number;
  /** A re-index under way or interrupted (`reindexSqliteStore`): its target and how far it got. */
  reindex?: { target: VectorSpace; staged: number };
}

/**
 * What the embedded store at `path` is indexed with, read-only (a running gateway may hold it):
 * for `nexus doctor`, which cannot ask the gateway. Undefined when there is no store yet.
 */
export function readStoreIndex(path: string): StoreIndex | undefined {
  if (!existsSync(path)) return undefined;
  const database = new DatabaseSync(path, { readOnly: true });
  try {
    const meta = (key: string) =>
      (database.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined)
        ?.value;
    const space = meta('vector_space');
    const target = meta('reindex_target');
    const totalMemories = (
      database.prepare('SELECT count(*) AS total FROM memories').get() as { total: number }
    ).total;
    const index: StoreIndex = {
      totalMemories,
      withoutVectors: space ? memoriesWithoutVectors(database) : totalMemories,
      vectorSpace: space ? (JSON.parse(space) as VectorSpace) : undefined,
    };
    if (target) {
      // Counted as `reindexSqliteStore` counts progress: staged rows whose memory is unchanged.
      const { staged } = database
        .prepare(
          'SELECT count(*) AS staged FROM reindex_vectors r JOIN memories m ON m.rowid = r.rowid AND m.hash = r.hash',
        )
        .get() as { staged: number };
      index.reindex = { target: JSON.parse(target) as VectorSpace, staged };
    }
    return index;
  } finally {
    database.close();
  }
}

/**
 * Memories of a store with vectors that have none: a lexical store first opened with an embedder
 * (before the background re-index, that marked it as indexed), or memories told just as a
 * background re-index switched over.
 */
export function memoriesWithoutVectors(database: DatabaseSync): number {
  const copy = database
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'memory_vectors'")
    .get();
  if (!copy) return (database.prepare('SELECT count(*) AS n FROM memories').get() as { n: number }).n;
  return (
    database
      .prepare(
        'SELECT count(*) AS n FROM memories m WHERE NOT EXISTS (SELECT 1 FROM memory_vectors v WHERE v.rowid = m.rowid)',
      )
      .get() as { n: number }
  ).n;
}
