import type { StatementSync } from 'node:sqlite';
import type { QuantisedVectorIndex } from './quantised-vector-index.ts';

type Statements = (sql: string) => StatementSync;

/**
 * Fills one person's `QuantisedVectorIndex` from `memory_vectors` in slices, one per
 * event-loop turn, so a 100k-vector build (~1 s of reading and quantising) never holds the
 * loop for more than a slice. The rowids are listed first (one read of the person's index);
 * each slice then reads and quantises its share. Writes committed after the listing reach the
 * index through the cache (`written` / `removed`), so a row changed meanwhile is either re-read
 * with its new vector (an upsert of the same rowid) or, deleted, no longer found.
 */
export class VectorIndexBuild {
  readonly index: QuantisedVectorIndex;
  readonly done: Promise<boolean>;
  readonly #userId: string;
  readonly #statements: Statements;
  readonly #sliceRows: number;
  readonly #stillValid: () => boolean;
  readonly #finished: (ready: boolean) => void;
  #resolve: (ready: boolean) => void = () => {};
  #rowids: number[] | undefined;
  #next = 0;
  #scheduled: NodeJS.Immediate | undefined;
  #settled = false;

  constructor(options: {
    userId: string;
    index: QuantisedVectorIndex;
    statements: Statements;
    sliceRows: number;
    stillValid: () => boolean;
    finished: (ready: boolean) => void;
  }) {
    this.index = options.index;
    this.#userId = options.userId;
    this.#statements = options.statements;
    this.#sliceRows = options.sliceRows;
    this.#stillValid = options.stillValid;
    this.#finished = options.finished;
    this.done = new Promise((resolve) => {
      this.#resolve = resolve;
    });
  }

  /** Runs the slices on later event-loop turns. */
  start(): void {
    this.#schedule();
  }

  /** Runs every remaining slice now (a caller that prefers to wait for the index). */
  runToEnd(): void {
    if (this.#scheduled) clearImmediate(this.#scheduled);
    this.#scheduled = undefined;
    while (!this.#settled) this.#slice();
  }

  /** Stops without an index (the store closed, or another connection changed the file). */
  cancel(): void {
    if (this.#scheduled) clearImmediate(this.#scheduled);
    this.#scheduled = undefined;
    this.#settle(false);
  }

  #schedule(): void {
    this.#scheduled = setImmediate(() => {
      this.#scheduled = undefined;
      this.#slice();
      if (!this.#settled) this.#schedule();
    });
  }

  #slice(): void {
    // Never throws out of a timer: a failed read drops the build and searches stay exact.
    try {
      if (!this.#stillValid()) {
        this.#settle(false);
        return;
      }
      if (!this.#rowids) {
        this.#rowids = (
          this.#statements('SELECT rowid FROM memories WHERE user_id = ?').all(this.#userId) as Array<{
            rowid: number;
          }>
        ).map((row) => Number(row.rowid));
        return;
      }
      const slice = this.#rowids.slice(this.#next, this.#next + this.#sliceRows);
      this.#next += slice.length;
      const rows = this.#statements(
        `SELECT m.rowid AS rowid, m.scope AS scope, v.embedding AS embedding FROM memories m
         JOIN memory_vectors v ON v.rowid = m.rowid
         WHERE m.rowid IN (SELECT value FROM json_each(?)) AND +m.user_id = ?`,
      ).all(JSON.stringify(slice), this.#userId) as Array<{
        rowid: number;
        scope: string;
        embedding: Uint8Array;
      }>;
      for (const row of rows) this.index.upsert(Number(row.rowid), row.scope, floats(row.embedding));
      if (this.#next >= this.#rowids.length) this.#settle(true);
    } catch {
      this.#settle(false);
    }
  }

  #settle(ready: boolean): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#rowids = undefined;
    this.#finished(ready);
    this.#resolve(ready);
  }
}

/** A stored unit vector's bytes as float32 (copied: SQLite's buffer is reused). */
export function floats(bytes: Uint8Array): Float32Array {
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}
