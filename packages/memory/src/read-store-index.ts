import { existsSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import type { VectorSpace } from './memory-store.ts';

export interface StoreIndex {
  totalMemories: number;
  /** The embedder the store's vectors come from; undefined for a lexical-only store. */
  vectorSpace: VectorSpace | undefined;
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
