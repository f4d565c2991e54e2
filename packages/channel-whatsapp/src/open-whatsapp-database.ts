import type { DatabaseSync } from 'node:sqlite';
import { openSqliteDatabase } from '@nexus/sqlite-kit';

export { inTransaction } from '@nexus/sqlite-kit';

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
CREATE TABLE IF NOT EXISTS wa_pending_intake (
  id TEXT PRIMARY KEY,
  intent TEXT NOT NULL,
  timestamp_s INTEGER NOT NULL,
  stored_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS wa_meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;
`;

/**
 * Opens (and creates) the one SQLite file that holds a WhatsApp account: credentials, signal
 * keys, recent messages for retries, the inbound cursor and messages received but not yet taken by core. WAL with `synchronous=FULL` so a
 * committed key write survives a crash or power loss; losing one would break the session.
 *
 * `exclusive` keeps the file locked by this connection until it closes: a second process on the
 * same account would make WhatsApp replace one session with the other in a loop (440) and race
 * on the signal keys, so it must fail to open instead.
 */
export function openWhatsAppDatabase(
  path: string,
  options: { exclusive?: boolean; timeoutMs?: number } = {},
): DatabaseSync {
  // Every statement is CREATE … IF NOT EXISTS, so it is also migration 1 of files made before
  // the schema was versioned.
  const database = openSqliteDatabase({
    path,
    storeName: 'WhatsApp store',
    migrations: [schema],
    busyTimeoutMs: options.timeoutMs ?? 5_000,
    synchronous: 'FULL',
    // As before the kit: keys and retry copies churn, and none of it is a person's words to forget.
    secureDelete: false,
    ...(options.exclusive ? { exclusive: true } : {}),
  });
  try {
    // The lock is taken by the first write and then held.
    database
      .prepare(
        `INSERT INTO wa_meta (key, value) VALUES ('opened_at', ?)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
      )
      .run(new Date().toISOString());
  } catch (error) {
    database.close();
    throw error;
  }
  return database;
}
