import type { DatabaseSync } from 'node:sqlite';
import { NexusError } from '@nexus/protocol';

/**
 * One item of a group commit (see `GroupCommit`, `inSavepoint`) whose only change is made by its
 * last statement (reads before it are fine), run without a savepoint around it: SQLite undoes a
 * failed statement alone and the transaction goes on, so its error comes back as the item's
 * outcome and the others still commit. This saves the item two statements (`SAVEPOINT`,
 * `RELEASE`). When SQLite rolled the whole transaction back (a full disk, an I/O error) the error
 * is thrown, as `inSavepoint` does, and every item fails with it. Nothing may throw after the
 * statement that wrote: its change would stay while the item reports a failure.
 */
export function aloneInTransaction<T>(database: DatabaseSync, work: () => T): T | Error {
  try {
    return work();
  } catch (error) {
    if (!database.isTransaction) throw error;
    return error instanceof Error ? error : new NexusError({ code: 'internal', message: String(error) });
  }
}
