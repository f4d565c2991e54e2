import type { DatabaseSync } from 'node:sqlite';
import { inTransaction } from '@nexus/sqlite-kit';
import type { AppendTurnOptions, ApplyRevisionOptions, IntentKey, MessageLookup } from './session-store.ts';
import type { SqliteReplyVersions } from './sqlite-reply-versions.ts';
import { TURN_COLUMNS, type TurnRow, toStoredTurn } from './sqlite-turn-row.ts';

/**
 * Schema step of the session store for edits and deletes: history rows may be notes (tied to the
 * message they are about, so deleting that message removes them too), and every applied revision
 * is recorded by id (a redelivery is a duplicate) with its target (a deleted message is never
 * answered again). No text is kept here: a deleted message leaves nothing behind but its id.
 */
export const REVISIONS_MIGRATION = `ALTER TABLE turns ADD COLUMN kind TEXT NOT NULL DEFAULT 'turn' CHECK (kind IN ('turn', 'note'));
   ALTER TABLE turns ADD COLUMN revises_intent_id TEXT;
   CREATE INDEX turns_by_revised ON turns (channel, revises_intent_id) WHERE revises_intent_id IS NOT NULL;
   CREATE TABLE revisions (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     channel TEXT NOT NULL,
     intent_id TEXT NOT NULL,
     target_intent_id TEXT NOT NULL,
     kind TEXT NOT NULL CHECK (kind IN ('edit', 'delete')),
     change TEXT NOT NULL,
     user_id TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     UNIQUE (channel, intent_id)
   );
   CREATE INDEX revisions_by_target ON revisions (channel, target_intent_id, kind);`;

/**
 * True when a revision was applied, or a message deleted: for the session store's one-statement
 * "seen" check over turns, revisions and inbox. Binds the channel and the intent id twice.
 */
export const REVISION_KNOWN_SQL = `(EXISTS (SELECT 1 FROM revisions WHERE channel = ? AND intent_id = ?)
  OR EXISTS (SELECT 1 FROM revisions WHERE channel = ? AND target_intent_id = ?
    AND kind = 'delete' AND change = 'delete'))`;

export interface SqliteTurnRevisions {
  lookUp(key: IntentKey): MessageLookup;
  /** Applies one revision; `insertTurn` and `finish` are the store's own, run in the same transaction. */
  apply(
    options: ApplyRevisionOptions,
    insertTurn: (turn: AppendTurnOptions, extra?: { kind: 'note'; revises: string }) => void,
    finish: (key: IntentKey) => void,
    versions: Pick<SqliteReplyVersions, 'record' | 'keepTurnVersion'>,
  ): void;
  forgetPerson(userId: string): number;
}

export function createSqliteTurnRevisions(database: DatabaseSync): SqliteTurnRevisions {
  const deleted = database.prepare(
    `SELECT 1 AS found FROM revisions WHERE channel = ? AND target_intent_id = ? AND kind = 'delete' AND change = 'delete'`,
  );
  const findTurn = database.prepare(
    `SELECT seq, ${TURN_COLUMNS} FROM turns WHERE channel = ? AND intent_id = ? AND kind = 'turn'`,
  );
  const newestTurn = database.prepare(
    `SELECT seq FROM turns WHERE conversation_key = ? AND kind = 'turn' ORDER BY seq DESC LIMIT 1`,
  );
  const replace = database.prepare(
    `UPDATE turns SET user_text = ?, reply_text = ?, outcome = ?, token_count = ?, created_at = ?
     WHERE channel = ? AND intent_id = ? AND kind = 'turn'`,
  );
  const retext = database.prepare(
    `UPDATE turns SET user_text = ?, token_count = ? WHERE channel = ? AND intent_id = ? AND kind = 'turn'`,
  );
  const removeNotes = database.prepare(`DELETE FROM turns WHERE channel = ? AND revises_intent_id = ?`);
  const removeTurn = database.prepare(
    `DELETE FROM turns WHERE channel = ? AND intent_id = ? AND kind = 'turn'`,
  );
  const record = database.prepare(
    `INSERT INTO revisions (channel, intent_id, target_intent_id, kind, change, user_id, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (channel, intent_id) DO NOTHING`,
  );
  const forget = database.prepare('DELETE FROM revisions WHERE user_id = ?');

  return {
    lookUp(key) {
      const row = findTurn.get(key.channel, key.intentId) as (TurnRow & { seq: number }) | undefined;
      if (row) {
        const newest = newestTurn.get(row.conversation_key) as { seq: number } | undefined;
        return { state: 'answered', turn: toStoredTurn(row), latest: newest?.seq === row.seq };
      }
      return deleted.get(key.channel, key.intentId) !== undefined
        ? { state: 'deleted' }
        : { state: 'unknown' };
    },
    apply(options, insertTurn, finish, versions) {
      const { channel, targetIntentId, change } = options;
      inTransaction(database, () => {
        // Recorded first: a revision seen before (another process applied it) changes nothing again.
        const fresh =
          Number(
            record.run(
              channel,
              options.intentId,
              targetIntentId,
              options.kind,
              change.type,
              options.userId,
              options.createdAt,
            ).changes,
          ) > 0;
        if (fresh) {
          // The version the target's row holds goes to the versions table before its text changes.
          if (change.type === 'replace' || change.type === 'note' || change.type === 'delete')
            versions.keepTurnVersion({ channel, intentId: targetIntentId });
          if (change.type === 'replace') {
            const { turn } = change;
            versions.record({ ...turn, intentId: targetIntentId });
            removeNotes.run(channel, targetIntentId);
            replace.run(
              turn.userText,
              turn.replyText,
              turn.outcome,
              turn.tokenCount ?? null,
              turn.createdAt,
              channel,
              targetIntentId,
            );
          } else if (change.type === 'insert') {
            insertTurn(change.turn);
          } else if (change.type === 'note') {
            retext.run(change.userText, change.tokenCount ?? null, channel, targetIntentId);
            insertTurn(change.note, { kind: 'note', revises: targetIntentId });
          } else if (change.type === 'delete') {
            removeNotes.run(channel, targetIntentId);
            removeTurn.run(channel, targetIntentId);
          }
        }
        finish({ channel, intentId: options.intentId });
      });
    },
    forgetPerson(userId) {
      return Number(forget.run(userId).changes);
    },
  };
}
