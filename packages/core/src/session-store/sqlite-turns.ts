import type { DatabaseSync } from 'node:sqlite';
import { statementsPerLimit } from '@nexus/sqlite-kit';
import type { AppendTurnOptions, IntentKey, StoredTurn } from './session-store.ts';
import { INBOX_WAITING_SQL, type IntentSeenCondition } from './sqlite-intent-inbox.ts';
import { REVISION_KNOWN_SQL } from './sqlite-turn-revisions.ts';
import { TURN_COLUMNS, type TurnRow, toStoredTurn } from './sqlite-turn-row.ts';

/** First schema step of the session store: the turns every later step builds on. */
export const TURNS_MIGRATION = `CREATE TABLE turns (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     channel TEXT NOT NULL,
     intent_id TEXT NOT NULL,
     conversation_key TEXT NOT NULL,
     user_id TEXT NOT NULL,
     user_text TEXT NOT NULL,
     reply_text TEXT NOT NULL,
     outcome TEXT NOT NULL CHECK (outcome IN ('ok', 'error', 'aborted')),
     token_count INTEGER,
     created_at INTEGER NOT NULL,
     UNIQUE (channel, intent_id)
   );
   CREATE INDEX turns_by_conversation ON turns (conversation_key, seq);`;

/**
 * An intent answered, revised, deleted or waiting: intake asks it of every message twice (the
 * early de-dupe, then inside the inbox's admitting insert, which writes only when it is false).
 * Positional parameters, not named (node:sqlite looks each name up on every run), and plain `?`
 * with the channel and intent id bound once per check rather than `?1`/`?2` reused: Node 22's
 * node:sqlite binds positional values to anonymous parameters only ("column index out of range").
 */
export const INTENT_SEEN: IntentSeenCondition = {
  sql: `(EXISTS (SELECT 1 FROM turns WHERE channel = ? AND intent_id = ?)
       OR ${REVISION_KNOWN_SQL} OR ${INBOX_WAITING_SQL})`,
  values: (channel, intentId) => [channel, intentId, channel, intentId, channel, intentId, channel, intentId],
};

export interface SqliteTurns {
  /** Whether the intent was seen (see `INTENT_SEEN`), in what is committed. */
  seen(key: IntentKey): boolean;
  /**
   * Returns whether the row was stored (an intent stored before keeps its first turn). A turn's
   * row keeps its reply id: its answer is also the message's first version.
   */
  insert(turn: AppendTurnOptions, note?: { kind: 'note'; revises: string }): boolean;
  /** The conversation's last `limit` turns (a whole number above 0), oldest first. */
  newest(conversationKey: string, limit: number): StoredTurn[];
  /** Deletes the person's turns; returns how many. */
  forgetPerson(userId: string): number;
  /** Deletes the person's turns of one conversation, every generation of it; returns how many. */
  forgetConversation(userId: string, conversationKey: string): number;
}

/** The turn rows' statements over the session store's connection; callers own the transactions. */
export function createSqliteTurns(database: DatabaseSync): SqliteTurns {
  // Read as an array: one value, no row object (5.4 → 1.2 µs a check inside a transaction, with
  // positional parameters; in isolation, load 5).
  const seen = database.prepare(`SELECT ${INTENT_SEEN.sql}`);
  seen.setReturnArrays(true);
  const insert = database.prepare(
    `INSERT INTO turns (channel, intent_id, conversation_key, user_id, user_text, reply_text, outcome, token_count, created_at, kind, revises_intent_id, reply_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (channel, intent_id) DO NOTHING`,
  );
  // `= +?`, not `= ?`: SQLite 3.54 compiles a statement again on every run when a bound value is
  // compared to a column and the rows are ordered; `+?` is the same value (a bound value has no
  // affinity either way) and the same plan, compiled once.
  const newest = statementsPerLimit(
    database,
    (limit) =>
      `SELECT ${TURN_COLUMNS} FROM turns WHERE conversation_key = +? ORDER BY seq DESC LIMIT ${limit}`,
  );
  const forget = database.prepare('DELETE FROM turns WHERE user_id = ?');
  // The conversation's key, or a later generation of it (`<key>#<n>`, after `/new`).
  const forgetConversation = database.prepare(
    `DELETE FROM turns WHERE user_id = :userId
       AND (conversation_key = :key OR substr(conversation_key, 1, length(:key) + 1) = :key || '#')`,
  );
  return {
    seen: ({ channel, intentId }) =>
      (seen.get(...INTENT_SEEN.values(channel, intentId)) as unknown as [number])[0] === 1,
    insert: (turn, note) =>
      insert.run(
        turn.channel,
        turn.intentId,
        turn.conversationKey,
        turn.userId,
        turn.userText,
        turn.replyText,
        turn.outcome,
        turn.tokenCount ?? null,
        turn.createdAt,
        note ? 'note' : 'turn',
        note ? note.revises : null,
        // The answer's first version lives in the turn's row (see TURN_REPLY_ID_MIGRATION).
        note ? null : (turn.replyId ?? null),
      ).changes !== 0,
    newest(conversationKey, limit) {
      const rows = newest(limit).all(conversationKey) as unknown as TurnRow[];
      return rows.reverse().map(toStoredTurn);
    },
    forgetPerson: (userId) => Number(forget.run(userId).changes),
    forgetConversation: (userId, key) => Number(forgetConversation.run({ userId, key }).changes),
  };
}
