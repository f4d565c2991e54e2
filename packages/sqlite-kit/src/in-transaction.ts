import type { DatabaseSync } from 'node:sqlite';

/**
 * Runs `work` in one write transaction, taken at once so two processes never deadlock upgrading a
 * read lock. Inside an open transaction it simply runs, so store methods compose.
 */
export function inTransaction<T>(database: DatabaseSync, work: () => T): T {
  if (database.isTransaction) return work();
  database.exec('BEGIN IMMEDIATE');
  try {
    const result = work();
    database.exec('COMMIT');
    return result;
  } catch (error) {
    database.exec('ROLLBACK');
    throw error;
  }
}
