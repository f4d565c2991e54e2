import type { DatabaseSync } from 'node:sqlite';
import { openSqliteDatabase } from '@nexus/sqlite-kit';

export { checkpointAndTruncate, inTransaction } from '@nexus/sqlite-kit';

/** Each entry moves the schema one version up; `PRAGMA user_version` records how far a file is. */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE people (
     id TEXT PRIMARY KEY,
     display_name TEXT,
     approved_at INTEGER,
     approved_by TEXT,
     created_at INTEGER NOT NULL
   );
   CREATE TABLE identities (
     channel TEXT NOT NULL,
     platform_id TEXT NOT NULL,
     person_id TEXT NOT NULL REFERENCES people (id),
     home_person_id TEXT NOT NULL REFERENCES people (id),
     display_name TEXT,
     created_at INTEGER NOT NULL,
     PRIMARY KEY (channel, platform_id)
   );
   CREATE INDEX identities_by_person ON identities (person_id);
   CREATE TABLE pairing_requests (
     code TEXT PRIMARY KEY,
     channel TEXT NOT NULL,
     platform_id TEXT NOT NULL,
     display_name TEXT,
     status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'rejected')),
     created_at INTEGER NOT NULL,
     expires_at INTEGER NOT NULL,
     decided_at INTEGER
   );
   CREATE INDEX pairing_by_sender ON pairing_requests (channel, platform_id, status);
   CREATE INDEX pairing_by_status ON pairing_requests (status, channel, expires_at);
   CREATE TABLE link_codes (
     code TEXT PRIMARY KEY,
     person_id TEXT NOT NULL REFERENCES people (id),
     issued_channel TEXT NOT NULL,
     issued_platform_id TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     expires_at INTEGER NOT NULL,
     claimed_channel TEXT,
     claimed_platform_id TEXT,
     claimed_at INTEGER
   );
   CREATE INDEX link_codes_by_claimer ON link_codes (claimed_channel, claimed_platform_id);
   CREATE TABLE code_attempts (
     subject TEXT PRIMARY KEY,
     failures INTEGER NOT NULL,
     window_started_at INTEGER NOT NULL,
     locked_until INTEGER
   );
   CREATE TABLE conversations (
     conversation_key TEXT PRIMARY KEY,
     generation INTEGER NOT NULL DEFAULT 0,
     person_id TEXT,
     updated_at INTEGER NOT NULL
   );
   CREATE INDEX conversations_by_person ON conversations (person_id);`,
  // Where a link code was asked for and entered, so the issuer can be asked to approve the link.
  `ALTER TABLE link_codes ADD COLUMN issued_conversation TEXT;
   ALTER TABLE link_codes ADD COLUMN claimed_conversation TEXT;
   ALTER TABLE link_codes ADD COLUMN claimed_display_name TEXT;
   CREATE INDEX link_codes_by_issuer ON link_codes (issued_channel, issued_platform_id);`,
  // The account that entered a code confirms it after being told whose account it joins.
  'ALTER TABLE link_codes ADD COLUMN claimer_confirmed_at INTEGER;',
  // Who spoke in which group, so `/forget-me` finds the group memories tagged with them.
  `CREATE TABLE group_speakers (
     person_id TEXT NOT NULL,
     group_memory_id TEXT NOT NULL,
     PRIMARY KEY (person_id, group_memory_id)
   ) WITHOUT ROWID;`,
];

export interface OpenAccessDatabaseOptions {
  /** A file path, or ':memory:'. */
  path: string;
  /** How long a write waits for another connection's lock (the CLI and the gateway share the file). */
  busyTimeoutMs?: number;
}

/**
 * Opens (and migrates) the access database: people, identities, pairing requests, link codes.
 * WAL journal, so the owner's CLI can read and write while the gateway runs.
 */
export function openAccessDatabase(options: OpenAccessDatabaseOptions): DatabaseSync {
  return openSqliteDatabase({
    path: options.path,
    ...(options.busyTimeoutMs !== undefined ? { busyTimeoutMs: options.busyTimeoutMs } : {}),
    migrations: MIGRATIONS,
    storeName: 'access store',
    foreignKeys: true,
  });
}

/** The schema version this code writes; `nexus doctor` compares a file against it. */
export const ACCESS_SCHEMA_VERSION = MIGRATIONS.length;
