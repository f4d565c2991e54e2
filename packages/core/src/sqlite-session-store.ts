import { NexusError } from '@nexus/protocol';
import { checkpointAndTruncate, inTransaction, openSqliteDatabase } from '@nexus/sqlite-kit';
import type { AppendTurnOptions, SessionStore } from './session-store.ts';
import { createSqliteIntentInbox, INBOX_MIGRATION } from './sqlite-intent-inbox.ts';
import { createSqliteTurnRevisions, REVISIONS_MIGRATION } from './sqlite-turn-revisions.ts';
import { TURN_COLUMNS, type TurnRow, toStoredTurn } from './sqlite-turn-row.ts';

export interface SqliteSessionStoreOptions {
  /** A file path, or ':memory:' for a store that lives as long as the process. */
  path: string;
  /** How long a write waits for another connection's lock before failing. */
  busyTimeoutMs?: number;
}

/** Each entry moves the schema one version up; `PRAGMA user_version` records how far a file is. */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE turns (
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
   CREATE INDEX turns_by_conversation ON turns (conversation_key, seq);`,
  INBOX_MIGRATION,
  REVISIONS_MIGRATION,
];

/**
 * The embedded SessionStore: one SQLite file through `node:sqlite`, WAL journal so reads never
 * wait for the writer, statements prepared once. Calls are synchronous underneath and short
 * (indexed lookups and single-row inserts). The intake inbox shares the file, so admitting an
 * intent and checking it was not answered, or storing a turn and finishing its entry, are each
 * one transaction. A commit survives the process being killed (WAL, `synchronous=NORMAL`); a
 * power cut may lose the last commits.
 */
export function createSqliteSessionStore(options: SqliteSessionStoreOptions): SessionStore {
  const database = openSqliteDatabase({
    path: options.path,
    ...(options.busyTimeoutMs !== undefined ? { busyTimeoutMs: options.busyTimeoutMs } : {}),
    migrations: MIGRATIONS,
    storeName: 'session store',
  });

  const hasIntentStatement = database.prepare(
    'SELECT 1 AS found FROM turns WHERE channel = ? AND intent_id = ?',
  );
  const insertStatement = database.prepare(
    `INSERT INTO turns (channel, intent_id, conversation_key, user_id, user_text, reply_text, outcome, token_count, created_at, kind, revises_intent_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (channel, intent_id) DO NOTHING`,
  );
  const historyStatement = database.prepare(
    `SELECT ${TURN_COLUMNS} FROM turns WHERE conversation_key = ? ORDER BY seq DESC LIMIT ?`,
  );
  const forgetStatement = database.prepare('DELETE FROM turns WHERE user_id = ?');
  // The conversation's key, or a later generation of it (`<key>#<n>`, after `/new`).
  const forgetConversationStatement = database.prepare(
    `DELETE FROM turns WHERE user_id = :userId
       AND (conversation_key = :key OR substr(conversation_key, 1, length(:key) + 1) = :key || '#')`,
  );
  // Inbox entries keep the whole intent as JSON: the person's ids appear there as JSON strings.
  const forgetInboxStatement = database.prepare(
    'DELETE FROM inbox WHERE instr(intent_json, ?1) > 0 OR instr(decided_json, ?1) > 0',
  );
  const inbox = createSqliteIntentInbox(database);
  const revisions = createSqliteTurnRevisions(database);
  const isAnswered = (key: { channel: string; intentId: string }) =>
    hasIntentStatement.get(key.channel, key.intentId) !== undefined || revisions.isKnown(key);
  const insertTurn = (turn: AppendTurnOptions, note?: { kind: 'note'; revises: string }) => {
    insertStatement.run(
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
    );
  };
  let closed = false;

  function ensureOpen(): void {
    if (closed) throw new NexusError({ code: 'internal', message: 'The session store is closed.' });
  }

  return {
    async hasIntent({ channel, intentId }) {
      ensureOpen();
      return isAnswered({ channel, intentId }) || inbox.isWaiting({ channel, intentId });
    },
    async appendTurn(turn: AppendTurnOptions) {
      ensureOpen();
      inTransaction(database, () => {
        insertTurn(turn);
        inbox.finish(turn);
      });
    },
    async admitIntent(entry) {
      ensureOpen();
      return inbox.admit(entry, isAnswered);
    },
    async recordReply({ replyText, ...key }) {
      ensureOpen();
      inbox.recordReply(key, replyText);
    },
    async finishIntent(key) {
      ensureOpen();
      inbox.finish(key);
    },
    async countReplay(key) {
      ensureOpen();
      inbox.countReplay(key);
    },
    async unfinishedIntents() {
      ensureOpen();
      return inbox.unfinished();
    },
    async lookUpMessage(key) {
      ensureOpen();
      return revisions.lookUp(key);
    },
    async applyRevision(options) {
      ensureOpen();
      revisions.apply(options, insertTurn, inbox.finish);
    },
    async history({ conversationKey, limit }) {
      ensureOpen();
      if (limit <= 0) return [];
      const rows = historyStatement.all(conversationKey, Math.floor(limit)) as unknown as TurnRow[];
      return rows.reverse().map(toStoredTurn);
    },
    async forgetPeople({ userIds }) {
      ensureOpen();
      // Turns, and the intake inbox's entries of theirs not answered yet (they are not answered now).
      const deleted = inTransaction(database, () => {
        // The record of their edits and deletes goes too (ids only, but theirs).
        for (const userId of userIds) revisions.forgetPerson(userId);
        return userIds.reduce(
          (sum, userId) =>
            sum +
            Number(forgetStatement.run(userId).changes) +
            Number(forgetInboxStatement.run(JSON.stringify(userId)).changes),
          0,
        );
      });
      checkpointAndTruncate(database);
      return deleted;
    },
    async forgetConversation({ conversationKey, userIds }) {
      ensureOpen();
      const deleted = inTransaction(database, () =>
        userIds.reduce(
          (sum, userId) =>
            sum + Number(forgetConversationStatement.run({ userId, key: conversationKey }).changes),
          0,
        ),
      );
      checkpointAndTruncate(database);
      return deleted;
    },
    async close() {
      if (closed) return;
      closed = true;
      database.close();
    },
  };
}
