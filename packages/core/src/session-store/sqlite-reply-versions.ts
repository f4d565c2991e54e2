import type { DatabaseSync } from 'node:sqlite';
import type { AppendTurnOptions, StoredTurn, TurnOutcome } from './session-store.ts';

/**
 * Schema step of the session store for versions of an answer: every answer stored for a message
 * (the first, one to an edit of it, a regenerated one) is kept under its reply id, so the person
 * can page between them and bring an earlier one back into history (`choose`). History itself
 * keeps one answer per message; this table is only read when a version is chosen.
 */
export const REPLY_VERSIONS_MIGRATION = `CREATE TABLE reply_versions (
     channel TEXT NOT NULL,
     intent_id TEXT NOT NULL,
     reply_id TEXT NOT NULL,
     conversation_key TEXT NOT NULL,
     user_id TEXT NOT NULL,
     user_text TEXT NOT NULL,
     reply_text TEXT NOT NULL,
     outcome TEXT NOT NULL,
     token_count INTEGER,
     created_at INTEGER NOT NULL,
     PRIMARY KEY (channel, intent_id, reply_id)
   );
   CREATE INDEX reply_versions_by_user ON reply_versions (user_id);`;

/**
 * Schema step: a turn keeps the id its answer went out under, and that answer is its message's
 * first version without a row of its own here. Writing it twice (the turn, and a copy of its
 * text with two index entries here) was 40% of the WAL pages a stored turn cost. The copy is
 * made only when the turn's text is about to change (`keepTurnVersion`). Adding a column rewrites
 * no rows: an upgraded file's turns read as having no reply id, and their versions are the rows
 * here, as before.
 */
export const TURN_REPLY_ID_MIGRATION = 'ALTER TABLE turns ADD COLUMN reply_id TEXT;';

export interface SqliteReplyVersions {
  /**
   * Keeps a stored answer as a version of the message it answers; the first write of an id wins,
   * and a turn stored under that id already holds it.
   */
  record(turn: AppendTurnOptions): void;
  /**
   * Before a turn's text changes or it is deleted: copies the version its row holds (its answer,
   * under its reply id) here, and clears the row's reply id.
   */
  keepTurnVersion(key: { channel: string; intentId: string }): void;
  find(key: { channel: string; intentId: string; replyId: string }): StoredTurn | undefined;
  forgetPerson(userId: string): number;
  /** The versions of one conversation (every generation of it) written by this person. */
  forgetConversation(userId: string, conversationKey: string): number;
}

interface VersionRow {
  channel: string;
  intent_id: string;
  reply_id: string;
  conversation_key: string;
  user_id: string;
  user_text: string;
  reply_text: string;
  outcome: string;
  token_count: number | null;
  created_at: number;
}

export function createSqliteReplyVersions(database: DatabaseSync): SqliteReplyVersions {
  const insert = database.prepare(
    `INSERT INTO reply_versions (channel, intent_id, reply_id, conversation_key, user_id, user_text, reply_text, outcome, token_count, created_at)
     SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?
     WHERE NOT EXISTS (SELECT 1 FROM turns WHERE channel = ? AND intent_id = ? AND reply_id = ?)
     ON CONFLICT (channel, intent_id, reply_id) DO NOTHING`,
  );
  const copyTurnVersion = database.prepare(
    `INSERT INTO reply_versions (channel, intent_id, reply_id, conversation_key, user_id, user_text, reply_text, outcome, token_count, created_at)
     SELECT channel, intent_id, reply_id, conversation_key, user_id, user_text, reply_text, outcome, token_count, created_at
     FROM turns WHERE channel = ? AND intent_id = ? AND reply_id IS NOT NULL
     ON CONFLICT (channel, intent_id, reply_id) DO NOTHING`,
  );
  const clearTurnReplyId = database.prepare(
    'UPDATE turns SET reply_id = NULL WHERE channel = ? AND intent_id = ? AND reply_id IS NOT NULL',
  );
  const columns =
    'channel, intent_id, reply_id, conversation_key, user_id, user_text, reply_text, outcome, token_count, created_at';
  const select = database.prepare(
    `SELECT ${columns} FROM reply_versions WHERE channel = ? AND intent_id = ? AND reply_id = ?`,
  );
  // The version a turn's row holds: its text is unchanged since it was stored (see keepTurnVersion).
  const selectFromTurn = database.prepare(
    `SELECT ${columns} FROM turns WHERE channel = ? AND intent_id = ? AND reply_id = ?`,
  );
  const forget = database.prepare('DELETE FROM reply_versions WHERE user_id = ?');
  const forgetConversation = database.prepare(
    `DELETE FROM reply_versions WHERE user_id = :userId
       AND (conversation_key = :key OR substr(conversation_key, 1, length(:key) + 1) = :key || '#')`,
  );
  return {
    record(turn) {
      if (turn.replyId === undefined) return;
      insert.run(
        turn.channel,
        turn.intentId,
        turn.replyId,
        turn.conversationKey,
        turn.userId,
        turn.userText,
        turn.replyText,
        turn.outcome,
        turn.tokenCount ?? null,
        turn.createdAt,
        // The NOT EXISTS check's own three (plain `?`: Node 22 binds positional values to no other kind).
        turn.channel,
        turn.intentId,
        turn.replyId,
      );
    },
    keepTurnVersion({ channel, intentId }) {
      copyTurnVersion.run(channel, intentId);
      clearTurnReplyId.run(channel, intentId);
    },
    find({ channel, intentId, replyId }) {
      const row = (select.get(channel, intentId, replyId) ??
        selectFromTurn.get(channel, intentId, replyId)) as VersionRow | undefined;
      if (row === undefined) return undefined;
      return {
        conversationKey: row.conversation_key,
        channel: row.channel,
        userId: row.user_id,
        intentId: row.intent_id,
        replyId: row.reply_id,
        userText: row.user_text,
        replyText: row.reply_text,
        outcome: row.outcome as TurnOutcome,
        createdAt: row.created_at,
        ...(row.token_count === null ? {} : { tokenCount: row.token_count }),
      };
    },
    forgetPerson: (userId) => Number(forget.run(userId).changes),
    forgetConversation: (userId, key) => Number(forgetConversation.run({ userId, key }).changes),
  };
}
