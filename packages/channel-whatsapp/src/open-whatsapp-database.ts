import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync } from 'node:sqlite';

const schema = `
CREATE TABLE IF NOT EXISTS wa_creds (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  json TEXT NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS wa_keys (
  type TEXT NOT NULL,
  id TEXT NOT NULL,
  json TEXT NOT NULL,
  PRIMARY KEY (type, id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS wa_messages (
  remote_jid TEXT NOT NULL,
  id TEXT NOT NULL,
  from_me INTEGER NOT NULL,
  data BLOB NOT NULL,
  stored_at INTEGER NOT NULL,
  PRIMARY KEY (remote_jid, id)
);
CREATE INDEX IF NOT EXISTS wa_messages_id ON wa_messages (id);
CREATE INDEX IF NOT EXISTS wa_messages_stored_at ON wa_messages (stored_at);
CREATE TABLE IF NOT EXISTS wa_handled (
  id TEXT PRIMARY KEY,
  timestamp_s INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS wa_handled_timestamp ON wa_handled (timestamp_s);
CREATE TABLE IF NOT EXISTS wa_meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;
`;

/**
 * Opens (and creates) the one SQLite file that holds a WhatsApp account: credentials, signal
 * keys, recent messages for retries and the inbound cursor. WAL with `synchronous=FULL` so a
 * committed key write survives a crash or power loss; losing one would break the session.
 */
export function openWhatsAppDatabase(path: string): DatabaseSync {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const database = new DatabaseSync(path, { timeout: 5_000 });
  database.exec('PRAGMA journal_mode = WAL');
  database.exec('PRAGMA synchronous = FULL');
  database.exec(schema);
  return database;
}

/** Runs `work` in one IMMEDIATE transaction; any throw rolls everything back. */
export function inTransaction<T>(database: DatabaseSync, work: () => T): T {
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
