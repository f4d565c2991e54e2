import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { NexusError } from '@nexus/protocol';

export interface OpenSqliteDatabaseOptions {
  /** A file path, or ':memory:'. */
  path: string;
  /** How long a write waits for another connection's lock (CLI and gateway share files). */
  busyTimeoutMs?: number;
  /** Schema steps in order; `PRAGMA user_version` records how many ran. */
  migrations: readonly string[];
  /** Named in errors, e.g. "session store". */
  storeName: string;
  foreignKeys?: boolean;
}

/**
 * Opens one of core's SQLite files the one way they all need: WAL (readers never wait for the
 * writer), `synchronous=NORMAL`, a busy timeout, and versioned migrations that run at start and
 * refuse a file written by a newer Nexus instead of damaging it.
 */
export function openSqliteDatabase(options: OpenSqliteDatabaseOptions): DatabaseSync {
  if (options.path !== ':memory:') mkdirSync(dirname(options.path), { recursive: true });
  const database = new DatabaseSync(options.path);
  database.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))}`);
  database.exec('PRAGMA journal_mode = WAL');
  database.exec('PRAGMA synchronous = NORMAL');
  // Deleted rows are overwritten with zeros, so what `/forget-me` deletes is not left in free pages.
  database.exec('PRAGMA secure_delete = ON');
  if (options.foreignKeys) database.exec('PRAGMA foreign_keys = ON');
  migrate(database, options);
  return database;
}

function migrate(database: DatabaseSync, options: OpenSqliteDatabaseOptions): void {
  const { migrations, storeName } = options;
  const row = database.prepare('PRAGMA user_version').get() as { user_version: number };
  if (row.user_version > migrations.length) {
    throw new NexusError({
      code: 'internal',
      message: `The ${storeName} was written by a newer Nexus (schema ${row.user_version}, this one knows ${migrations.length}).`,
    });
  }
  for (let version = row.user_version; version < migrations.length; version++) {
    try {
      inTransaction(database, () => {
        database.exec(migrations[version] ?? '');
        database.exec(`PRAGMA user_version = ${version + 1}`);
      });
    } catch (error) {
      throw new NexusError({
        code: 'internal',
        message: `${storeName} migration ${version + 1} failed.`,
        cause: error,
      });
    }
  }
}

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

/**
 * Copies the WAL into the main file and cuts it to zero bytes, so deleted text no longer sits in
 * old WAL frames. Another connection reading at that moment can keep the WAL from being cut; the
 * next checkpoint finishes the job, and the frames are overwritten as the WAL is reused.
 */
export function checkpointAndTruncate(database: DatabaseSync): void {
  database.exec('PRAGMA wal_checkpoint(TRUNCATE)');
}
