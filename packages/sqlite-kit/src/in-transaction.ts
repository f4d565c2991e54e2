import type { DatabaseSync } from 'node:sqlite';

/**
 * Runs `work` in one write transaction, taken at once so two processes never deadlock upgrading a
 * read lock. Inside an open transaction it simply runs, so store methods compose. A failure is
 * thrown as SQLite reported it: after a full disk or an I/O error SQLite has already rolled the
 * transaction back, and a second ROLLBACK would fail with "no transaction is active" and hide
 * the reason (an operator must read "database or disk is full").
 */
export function inTransaction<T>(database: DatabaseSync, work: () => T): T {
  if (database.isTransaction) return work();
  database.exec('BEGIN IMMEDIATE');
  try {
    const result = work();
    database.exec('COMMIT');
    return result;
  } catch (error) {
    if (database.isTransaction) database.exec('ROLLBACK');
    throw error;
  }
}
