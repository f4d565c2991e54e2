import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { NexusError } from '@nexus/protocol';

interface SavepointStatements {
  savepoint: StatementSync;
  release: StatementSync;
  rollbackTo: StatementSync;
}

/** Prepared once per connection: a group commit takes a savepoint for every item it writes. */
const prepared = new WeakMap<DatabaseSync, SavepointStatements>();

/**
 * One item of a group commit (see `GroupCommit`): `work` in its own savepoint inside the open
 * transaction. A throw undoes that item's writes alone, runs `undone` (for in-process state the
 * item changed) and comes back as the item's outcome, an `Error`, so the others still commit.
 * When SQLite rolled the whole transaction back (a full disk, an I/O error) there is nothing left
 * to commit: the error is thrown, so the transaction and every item in it fail with it.
 */
export function inSavepoint(database: DatabaseSync, work: () => unknown, undone?: () => void): unknown {
  let statements = prepared.get(database);
  if (!statements) {
    statements = {
      savepoint: database.prepare('SAVEPOINT group_item'),
      release: database.prepare('RELEASE group_item'),
      rollbackTo: database.prepare('ROLLBACK TO group_item'),
    };
    prepared.set(database, statements);
  }
  statements.savepoint.run();
  try {
    const result = work();
    statements.release.run();
    return result;
  } catch (error) {
    if (!database.isTransaction) {
      undone?.();
      throw error;
    }
    statements.rollbackTo.run();
    statements.release.run();
    undone?.();
    return error instanceof Error ? error : new NexusError({ code: 'internal', message: String(error) });
  }
}
