import type { DatabaseSync, StatementSync } from 'node:sqlite';

/**
 * Runs `work`, whose statements only read, in one read transaction (a deferred BEGIN: the file's
 * shared lock and the WAL read mark are taken at its first read and held until its end). Each
 * statement outside a transaction takes and drops them itself, a few system calls each: ~10 µs a
 * statement on a small VM, more than most of a small person's reads cost. One snapshot for all of
 * `work`'s reads, as if they had all run at its first one. Inside an open transaction it simply
 * runs. `work` must not write (a write would find a snapshot another connection may have moved
 * past) and must not wait on the event loop: it is synchronous.
 */
export function inReadTransaction<T>(database: DatabaseSync, work: () => T): T {
  if (database.isTransaction) return work();
  const { begin, commit } = boundsOf(database);
  begin.run();
  try {
    return work();
  } finally {
    // Nothing was written, so ending it cannot fail for a conflict; after an error SQLite may
    // have ended it already.
    if (database.isTransaction) commit.run();
  }
}

/** Prepared once per connection: `exec` would parse them on every call. */
const bounds = new WeakMap<DatabaseSync, { begin: StatementSync; commit: StatementSync }>();

function boundsOf(database: DatabaseSync): { begin: StatementSync; commit: StatementSync } {
  let known = bounds.get(database);
  if (!known) {
    known = { begin: database.prepare('BEGIN DEFERRED'), commit: database.prepare('COMMIT') };
    bounds.set(database, known);
  }
  return known;
}
