import type { DatabaseSync } from 'node:sqlite';
import { type Intent, intentSchema } from '@nexus/protocol';
import type { AdmitIntentOptions, InboxEntry, InboxEntryKind, IntentKey } from './session-store.ts';

/** Schema step of the session store: the inbox lives in the same file as the turns it de-dupes against. */
export const INBOX_MIGRATION = `CREATE TABLE inbox (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     channel TEXT NOT NULL,
     intent_id TEXT NOT NULL,
     conversation_key TEXT NOT NULL,
     kind TEXT NOT NULL CHECK (kind IN ('turn', 'reply')),
     intent_json TEXT NOT NULL,
     decided_json TEXT NOT NULL,
     reply_text TEXT,
     accepted_at INTEGER NOT NULL,
     replays INTEGER NOT NULL DEFAULT 0,
     UNIQUE (channel, intent_id)
   );`;

/**
 * Schema step: the decided intent is stored only when it differs from the intent as it arrived
 * (`decided_json` NULL: the same). It almost always is the same, and each entry held its JSON
 * twice (a few hundred bytes more per message in the WAL, and a second `JSON.stringify`). SQLite
 * cannot drop a NOT NULL in place, so the table is made again (it holds only unanswered intents,
 * few) through a temporary copy, in the pages it had, keeping its `AUTOINCREMENT` high-water
 * mark so no `seq` is handed out twice.
 */
export const INBOX_DECIDED_WHEN_CHANGED_MIGRATION = `CREATE TEMP TABLE inbox_copy AS SELECT * FROM inbox;
   CREATE TEMP TABLE inbox_sequence AS SELECT seq FROM sqlite_sequence WHERE name = 'inbox';
   DROP TABLE inbox;
   CREATE TABLE inbox (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     channel TEXT NOT NULL,
     intent_id TEXT NOT NULL,
     conversation_key TEXT NOT NULL,
     kind TEXT NOT NULL CHECK (kind IN ('turn', 'reply')),
     intent_json TEXT NOT NULL,
     decided_json TEXT,
     reply_text TEXT,
     accepted_at INTEGER NOT NULL,
     replays INTEGER NOT NULL DEFAULT 0,
     UNIQUE (channel, intent_id)
   );
   INSERT INTO sqlite_sequence (name, seq) SELECT 'inbox', seq FROM inbox_sequence;
   INSERT INTO inbox (seq, channel, intent_id, conversation_key, kind, intent_json, decided_json,
       reply_text, accepted_at, replays)
     SELECT seq, channel, intent_id, conversation_key, kind, intent_json, NULLIF(decided_json, intent_json),
       reply_text, accepted_at, replays
     FROM inbox_copy ORDER BY seq;
   DROP TABLE inbox_copy;
   DROP TABLE inbox_sequence;`;

/**
 * A condition on an intent (channel and intent id) written in SQL, and the values it binds for
 * one, in order: plain `?` parameters repeat the values where the condition checks several tables.
 */
export interface IntentSeenCondition {
  sql: string;
  values(channel: string, intentId: string): string[];
}

/** True when an intent is in the inbox; binds the channel and the intent id (see `INTENT_SEEN`). */
export const INBOX_WAITING_SQL = 'EXISTS (SELECT 1 FROM inbox WHERE channel = ? AND intent_id = ?)';

interface InboxRow {
  channel: string;
  intent_id: string;
  conversation_key: string;
  kind: string;
  intent_json: string;
  /** Null: the same as `intent_json` (see INBOX_DECIDED_WHEN_CHANGED_MIGRATION). */
  decided_json: string | null;
  reply_text: string | null;
  accepted_at: number;
  replays: number;
}

export interface SqliteIntentInbox {
  /** Writes the entry unless the intent was seen (answered, revised, deleted or already waiting). */
  admit(entry: AdmitIntentOptions): 'admitted' | 'duplicate';
  recordReply(key: IntentKey, replyText: string): void;
  finish(key: IntentKey): void;
  countReplay(key: IntentKey): void;
  unfinished(): InboxEntry[];
  /** Deletes every entry naming the person (as sender or as decided); returns how many. */
  forgetPerson(userId: string): number;
}

/**
 * The inbox statements over the session store's connection; callers own the transactions.
 * `seen` is the store's condition for an intent it has seen and the values it binds: the admission
 * checks it and writes the entry in one statement.
 */
export function createSqliteIntentInbox(
  database: DatabaseSync,
  seen: IntentSeenCondition,
): SqliteIntentInbox {
  // Positional parameters, not named: node:sqlite looks each name up on every run (10.8 → 9.2 µs
  // an admission in isolation, load 5). Plain `?`, not `?1`: Node 22's node:sqlite binds
  // positional values to anonymous parameters only.
  const insert = database.prepare(
    `INSERT INTO inbox (channel, intent_id, conversation_key, kind, intent_json, decided_json, accepted_at)
     SELECT ?, ?, ?, ?, ?, ?, ?
     WHERE NOT ${seen.sql}`,
  );
  const reply = database.prepare('UPDATE inbox SET reply_text = ? WHERE channel = ? AND intent_id = ?');
  const remove = database.prepare('DELETE FROM inbox WHERE channel = ? AND intent_id = ?');
  const replayed = database.prepare(
    'UPDATE inbox SET replays = replays + 1 WHERE channel = ? AND intent_id = ?',
  );
  const all = database.prepare(
    `SELECT channel, intent_id, conversation_key, kind, intent_json, decided_json, reply_text, accepted_at, replays
     FROM inbox ORDER BY seq`,
  );
  // Entries keep the whole intent as JSON: the person's ids appear there as JSON strings (a
  // decided intent held apart only when it differs; `instr` of its NULL is NULL, not a match).
  const forget = database.prepare(
    'DELETE FROM inbox WHERE instr(intent_json, ?) > 0 OR instr(decided_json, ?) > 0',
  );
  return {
    admit(entry) {
      const intentJson = JSON.stringify(entry.intent);
      const decidedJson = entry.decided === entry.intent ? intentJson : JSON.stringify(entry.decided);
      const { changes } = insert.run(
        entry.channel,
        entry.intentId,
        entry.conversationKey,
        entry.kind,
        intentJson,
        decidedJson === intentJson ? null : decidedJson,
        entry.acceptedAt,
        ...seen.values(entry.channel, entry.intentId),
      );
      return changes === 0 ? 'duplicate' : 'admitted';
    },
    recordReply(key, replyText) {
      reply.run(replyText, key.channel, key.intentId);
    },
    finish(key) {
      remove.run(key.channel, key.intentId);
    },
    countReplay(key) {
      replayed.run(key.channel, key.intentId);
    },
    unfinished() {
      return (all.all() as unknown as InboxRow[]).map(toEntry);
    },
    forgetPerson(userId) {
      const needle = JSON.stringify(userId);
      return Number(forget.run(needle, needle).changes);
    },
  };
}

function toEntry(row: InboxRow): InboxEntry {
  return {
    channel: row.channel,
    intentId: row.intent_id,
    conversationKey: row.conversation_key,
    kind: row.kind as InboxEntryKind,
    intent: parseIntent(row.intent_json),
    decided: parseIntent(row.decided_json ?? row.intent_json),
    acceptedAt: row.accepted_at,
    replays: row.replays,
    ...(row.reply_text === null ? {} : { replyText: row.reply_text }),
  };
}

/** Stored by this code from a validated intent; parsed again so dates and defaults come back typed. */
function parseIntent(json: string): Intent {
  return intentSchema.parse(JSON.parse(json));
}
