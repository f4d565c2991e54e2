import type { DatabaseSync } from 'node:sqlite';

/**
 * `PRAGMA data_version` of the file, read at most once per pass of the event loop: it moves when
 * another connection (the owner's CLI, another process) commits, so an in-memory copy of rows is
 * still good while it stays the same. Under load one pass serves many turns, so one read covers
 * them all. A commit by another process is seen from the next pass on, as if it had landed a
 * moment later; `fresh` reads it now (and keeps that for the rest of the pass). This
 * connection's own commits never move it: whoever caches must follow those.
 */
export function committedVersionReader(database: DatabaseSync): (options?: { fresh: boolean }) => number {
  const shared = readers.get(database);
  if (shared) return shared;
  const statement = database.prepare('PRAGMA data_version');
  let pinned: number | undefined;
  const reader = (options?: { fresh: boolean }) => {
    if (pinned !== undefined && !options?.fresh) return pinned;
    if (pinned === undefined)
      setImmediate(() => {
        pinned = undefined;
      });
    pinned = (statement.get() as { data_version: number }).data_version;
    return pinned;
  };
  readers.set(database, reader);
  return reader;
}

/**
 * One reader per connection, whoever asks: a connection's caches (the session store's, each
 * `CommittedCache`, the job queue's ready mark, the memory store's) share one reading per pass
 * instead of one each. A warm turn made ~12 readings and as many `setImmediate`s before.
 */
const readers = new WeakMap<DatabaseSync, (options?: { fresh: boolean }) => number>();

/**
 * Whether another connection committed to the file since the last call (true on the first): for
 * an in-memory copy of rows that is dropped whole when that happens. Same reading as
 * `committedVersionReader`: once per pass of the event loop.
 */
export function othersCommittedWatcher(database: DatabaseSync): () => boolean {
  const committedVersion = committedVersionReader(database);
  let seen: number | undefined;
  return () => {
    const version = committedVersion();
    if (version === seen) return false;
    seen = version;
    return true;
  };
}
