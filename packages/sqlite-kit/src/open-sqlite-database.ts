import { DatabaseSync } from 'node:sqlite';
import { NexusError } from '@nexus/protocol';
import { createPrivateFile } from './create-private-file.ts';
import { inTransaction } from './in-transaction.ts';

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
  /** Lets the caller load SQLite extensions (sqlite-vec for memory). */
  allowExtension?: boolean;
  /** `FULL` where a lost commit breaks something outside (WhatsApp's signal keys). Default NORMAL. */
  synchronous?: 'NORMAL' | 'FULL';
  /**
   * Keeps the file locked by this connection until it closes (after the first write), so a second
   * process fails to open it instead of racing on it.
   */
  exclusive?: boolean;
  /** Zero deleted rows (default on: people can ask for everything about them to be forgotten). */
  secureDelete?: boolean;
}

/**
 * Opens a Nexus SQLite file the one way they all need: WAL (readers never wait for the
 * writer), `synchronous=NORMAL`, a busy timeout, and versioned migrations that run at start and
 * refuse a file written by a newer Nexus instead of damaging it. A new file is created owner-only
 * (0600, in a 0700 directory): stores hold conversations, people and keys.
 */
export function openSqliteDatabase(options: OpenSqliteDatabaseOptions): DatabaseSync {
  if (options.path !== ':memory:') createPrivateFile(options.path);
  const database = new DatabaseSync(options.path, {
    ...(options.allowExtension ? { allowExtension: true } : {}),
  });
  try {
    database.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))}`);
    // Must precede the first WAL access so no shared-memory index is ever used.
    if (options.exclusive) database.exec('PRAGMA locking_mode = EXCLUSIVE');
    database.exec('PRAGMA journal_mode = WAL');
    database.exec(`PRAGMA synchronous = ${options.synchronous === 'FULL' ? 'FULL' : 'NORMAL'}`);
    // Deleted rows are overwritten with zeros, so what `/forget-me` deletes is not left in free pages.
    if (options.secureDelete !== false) database.exec('PRAGMA secure_delete = ON');
    if (options.foreignKeys) database.exec('PRAGMA foreign_keys = ON');
    migrate(database, options);
  } catch (error) {
    database.close();
    throw error;
  }
  return database;
}

/** Runs the migrations not yet recorded in `PRAGMA user_version`; refuses a newer file. */
export function migrate(
  database: DatabaseSync,
  options: Pick<OpenSqliteDatabaseOptions, 'migrations' | 'storeName'>,
): void {
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
