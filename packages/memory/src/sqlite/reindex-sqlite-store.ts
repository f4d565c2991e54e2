import type { DatabaseSync } from 'node:sqlite';
import { inTransaction, openSqliteDatabase } from '@nexus/sqlite-kit';
import { getLoadablePath } from 'sqlite-vec';
import type { Embedder } from '../embedders/embedder.ts';
import { MemoryStoreError } from '../model/memory-errors.ts';
import type { VectorSpace } from '../model/memory-store.ts';
import { memoriesWithoutVectors } from '../model/read-store-index.ts';
import { createSqliteMemoryStore } from './sqlite-memory-store.ts';
import { unitVectorBytes, VECTOR_COPY_TABLE_SQL, vectorTableSql } from './sqlite-schema.ts';

export interface ReindexProgress {
  /** Memories whose new vector is staged (including ones staged by an earlier, interrupted run). */
  done: number;
  total: number;
}

export interface ReindexResult {
  from: VectorSpace | undefined;
  to: VectorSpace | undefined;
  /** Memories embedded by this run (fewer than `total` when an interrupted run is resumed). */
  embedded: number;
  total: number;
}

export interface ReindexSqliteStoreOptions {
  path: string;
  /** The new embedder; undefined switches the store to lexical only (vectors dropped). */
  embedder: Embedder | undefined;
  /** Texts per embed call (default 64). */
  batchSize?: number;
  onProgress?: (progress: ReindexProgress) => void;
  abortSignal?: AbortSignal;
}

/**
 * Re-embeds every memory of the embedded store with another embedder, then swaps the vector
 * table and the recorded vector space in one transaction. New vectors are staged in
 * `reindex_vectors` (committed per batch) while the store stays on the old embedder, so a crash
 * or Ctrl-C leaves a store that still opens with the old embedder, and running the same reindex
 * again resumes from the staged rows. Memories added or changed meanwhile (hash differs) are
 * embedded again before the swap; deleted ones are simply not carried over.
 */
export async function reindexSqliteStore(options: ReindexSqliteStoreOptions): Promise<ReindexResult> {
  // Opening the store once runs any schema migration and reports the current vector space.
  const current = createSqliteMemoryStore({ path: options.path });
  const from = current.vectorSpace;
  await current.close();
  const to = options.embedder
    ? { embedderId: options.embedder.id, dimensions: options.embedder.dimensions }
    : undefined;
  const database = openSqliteDatabase({
    path: options.path,
    storeName: 'memory store',
    migrations: [],
    allowExtension: true,
  });
  try {
    database.loadExtension(getLoadablePath());
    const total = (database.prepare('SELECT count(*) AS total FROM memories').get() as { total: number })
      .total;
    const sameSpace = from?.embedderId === to?.embedderId && from?.dimensions === to?.dimensions;
    if (sameSpace && (!to || memoriesWithoutVectors(database) === 0)) {
      // Already there (also after a swap that committed just before a crash): nothing to do.
      options.onProgress?.({ done: total, total });
      return { from, to, embedded: 0, total };
    }
    if (!to) {
      options.onProgress?.({ done: total, total });
      swap(database, undefined, () => true);
      return { from, to, embedded: 0, total };
    }
    // On the same embedder, only the memories without a vector are embedded: the others' are staged as they are.
    const embedded = await stage(database, to, options, total, sameSpace);
    return { from, to, embedded, total };
  } finally {
    database.close();
  }
}

async function stage(
  database: DatabaseSync,
  to: VectorSpace,
  options: ReindexSqliteStoreOptions,
  total: number,
  keepVectors: boolean,
): Promise<number> {
  const embedder = options.embedder!;
  const batchSize = Math.max(1, options.batchSize ?? 64);
  const target = JSON.stringify(to);
  const staged = database.prepare("SELECT value FROM meta WHERE key = 'reindex_target'").get() as
    | { value: string }
    | undefined;
  if (staged?.value !== target) {
    // Nothing staged yet, or staged for another embedder: start over.
    inTransaction(database, () => {
      database.exec(`DROP TABLE IF EXISTS reindex_vectors;
        CREATE TABLE reindex_vectors (rowid INTEGER PRIMARY KEY, hash TEXT NOT NULL, embedding BLOB);`);
      database.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('reindex_target', ?)").run(target);
      if (keepVectors)
        database.exec(`INSERT INTO reindex_vectors (rowid, hash, embedding)
          SELECT v.rowid, m.hash, v.embedding FROM memory_vectors v JOIN memories m ON m.rowid = v.rowid`);
    });
  }
  // Memories without a staged vector, or whose content changed since it was staged: walked in
  // rowid order from a cursor, so a batch reads only its own rows (the event loop is held for
  // a batch's work, not the whole table's); one full pass at the end catches what changed behind it.
  const missing = `SELECT m.rowid, m.hash, m.content FROM memories m LEFT JOIN reindex_vectors r ON r.rowid = m.rowid
     WHERE (r.rowid IS NULL OR r.hash != m.hash)`;
  const pendingAfter = database.prepare(`${missing} AND m.rowid > ? ORDER BY m.rowid LIMIT ?`);
  const pending = database.prepare(`${missing} ORDER BY m.rowid LIMIT ?`);
  const countStaged = database.prepare(
    'SELECT count(*) AS done FROM reindex_vectors r JOIN memories m ON m.rowid = r.rowid AND m.hash = r.hash',
  );
  const put = database.prepare(
    'INSERT OR REPLACE INTO reindex_vectors (rowid, hash, embedding) VALUES (?, ?, ?)',
  );
  let embedded = 0;
  // Counted once, then kept up to date per batch (memories told meanwhile raise the total).
  let done = (countStaged.get() as { done: number }).done;
  const report = () => options.onProgress?.({ done, total: Math.max(total, done) });
  report();
  let after = 0;
  for (;;) {
    options.abortSignal?.throwIfAborted();
    type Row = { rowid: number; hash: string; content: string };
    let rows = pendingAfter.all(after, batchSize) as Row[];
    if (rows.length === 0) rows = pending.all(batchSize) as Row[];
    // Swap only if nothing changed since the last batch was read; otherwise embed what did.
    if (rows.length === 0 && swap(database, to, () => pending.all(1).length === 0)) break;
    if (rows.length === 0) continue;
    after = Math.max(after, rows.at(-1)!.rowid);
    const vectors = await embedder.embed({
      texts: rows.map((row) => row.content),
      abortSignal: options.abortSignal,
    });
    if (vectors.length !== rows.length) {
      throw new MemoryStoreError({
        message: `Embedder returned ${vectors.length} vectors for ${rows.length}.`,
      });
    }
    inTransaction(database, () => {
      rows.forEach((row, index) => {
        const vector = vectors[index]!;
        if (vector.length !== to.dimensions) {
          throw new MemoryStoreError({
            message: `Embedder returned ${vector.length} dimensions, expected ${to.dimensions}.`,
          });
        }
        put.run(row.rowid, row.hash, unitVectorBytes(vector) ?? null);
      });
    });
    embedded += rows.length;
    done += rows.length;
    report();
  }
  return embedded;
}

/**
 * One transaction: the vec0 table is rebuilt from the staged vectors (or dropped) and the
 * recorded vector space changes with it, so the file is never half on one embedder. False (and
 * nothing changed) when `ready` says memories changed since they were staged.
 */
function swap(database: DatabaseSync, to: VectorSpace | undefined, ready: () => boolean): boolean {
  // A `false` from `ready` commits an empty transaction: nothing was written yet.
  return inTransaction(database, () => {
    if (!ready()) return false;
    database.exec('DROP TABLE IF EXISTS memories_vec; DROP TABLE IF EXISTS memory_vectors');
    if (to) {
      database.exec(vectorTableSql(to.dimensions));
      database.exec(VECTOR_COPY_TABLE_SQL);
      database.exec(
        `INSERT INTO memories_vec (rowid, user_id, scope, embedding)
         SELECT r.rowid, m.user_id, m.scope, r.embedding FROM reindex_vectors r
         JOIN memories m ON m.rowid = r.rowid AND m.hash = r.hash WHERE r.embedding IS NOT NULL`,
      );
      database.exec(
        'INSERT INTO memory_vectors (rowid, embedding) SELECT rowid, embedding FROM memories_vec',
      );
      database
        .prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('vector_space', ?)")
        .run(JSON.stringify(to));
    } else {
      database.exec("DELETE FROM meta WHERE key = 'vector_space'");
    }
    database.exec("DROP TABLE IF EXISTS reindex_vectors; DELETE FROM meta WHERE key = 'reindex_target';");
    return true;
  });
}
