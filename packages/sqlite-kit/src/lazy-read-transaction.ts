import type { DatabaseSync, StatementSync } from 'node:sqlite';

/**
 * The statements of one read (`run`) in one read transaction, begun by the first statement that
 * runs (`beforeStatement`), so a read that needs no statement costs nothing. Each statement
 * outside a transaction takes and drops the file's shared lock itself (two `fcntl` and an
 * `fstat`: ~10 µs a statement on a small VM, more than most of a small person's reads cost).
 * Its statements see one snapshot, as if they had all run at the first. Inside an open
 * transaction it adds nothing. The work must only read (a write would find a snapshot another
 * connection may have moved past) and be synchronous.
 */
export class LazyReadTransaction {
  readonly #database: DatabaseSync;
  readonly #begin: StatementSync;
  readonly #commit: StatementSync;
  #running = false;
  #begun = false;

  constructor(database: DatabaseSync) {
    this.#database = database;
    // Prepared once: `exec` would parse them on every read.
    this.#begin = database.prepare('BEGIN DEFERRED');
    this.#commit = database.prepare('COMMIT');
  }

  run<T>(work: () => T): T {
    if (this.#running) return work();
    this.#running = true;
    try {
      return work();
    } finally {
      this.#running = false;
      if (this.#begun) {
        this.#begun = false;
        // Nothing was written, so ending it cannot fail on a conflict; after some errors SQLite
        // has ended it already.
        if (this.#database.isTransaction) this.#commit.run();
      }
    }
  }

  /** Call before a statement runs: inside `run`, the first one begins the read transaction. */
  beforeStatement(): void {
    if (!this.#running || this.#begun || this.#database.isTransaction) return;
    this.#begin.run();
    this.#begun = true;
  }
}
