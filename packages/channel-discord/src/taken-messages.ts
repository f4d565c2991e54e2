import type { DatabaseSync } from 'node:sqlite';
import type { ConversationKind, IntentInput } from '@nexus/protocol';

/** What a delete intent needs to know about a message core took: MESSAGE_DELETE carries only ids. */
export interface TakenMessage {
  conversation: { id: string; kind: ConversationKind };
  sender: { platformId: string };
  userId: string;
}

/** The newest this many taken messages are kept; the oldest are dropped first. */
export const MAX_TAKEN_MESSAGES = 20_000;
/** Older entries are dropped: a delete of a month-old message is rare, and then not reported. */
export const TAKEN_MESSAGE_MAX_AGE_MS = 30 * 24 * 60 * 60_000;

/**
 * Migration 2 of the adapter's file. Ids only (no titles, no display names): this file is not a
 * place for personal data. `seq` is the insertion order, so the row bound is one range delete on
 * the primary key. The trigger keeps both bounds inside the single INSERT each taken message
 * costs (one implicit transaction, no extra statements). Changing a bound needs a new migration
 * that recreates the trigger.
 */
export const takenMessagesSchema = `
CREATE TABLE IF NOT EXISTS discord_taken_message (
  seq INTEGER PRIMARY KEY,
  message_id TEXT NOT NULL UNIQUE,
  channel_id TEXT NOT NULL,
  conversation_kind TEXT NOT NULL CHECK (conversation_kind IN ('direct', 'group', 'thread')),
  author_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  taken_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS discord_taken_message_taken_at ON discord_taken_message (taken_at);
CREATE TRIGGER IF NOT EXISTS discord_taken_message_bounds AFTER INSERT ON discord_taken_message
BEGIN
  DELETE FROM discord_taken_message WHERE seq <= NEW.seq - ${MAX_TAKEN_MESSAGES};
  DELETE FROM discord_taken_message WHERE taken_at < NEW.taken_at - ${TAKEN_MESSAGE_MAX_AGE_MS};
END;
`;

interface TakenMessageRow {
  channelId: string;
  kind: ConversationKind;
  authorId: string;
  userId: string;
}

/**
 * The messages handed to core, in the adapter's SQLite file (`:memory:` when it has none), so a
 * delete of a message taken before a restart is still reported. Discord's MESSAGE_DELETE says
 * neither who wrote the message nor where it was addressed, and the adapter caches no messages,
 * so this is how a delete finds its conversation and author, and how the group gate knows the
 * target could have been taken. Bounded to the newest `MAX_TAKEN_MESSAGES` and to
 * `TAKEN_MESSAGE_MAX_AGE_MS`.
 */
export class TakenMessages {
  readonly #now: () => number;
  readonly #insert;
  readonly #select;

  constructor(database: DatabaseSync, options: { now: () => number }) {
    this.#now = options.now;
    // REPLACE: a message handed over again (after a retryable refusal) becomes the newest entry.
    this.#insert = database.prepare(
      `INSERT OR REPLACE INTO discord_taken_message
         (message_id, channel_id, conversation_kind, author_id, user_id, taken_at)
       VALUES (?, ?, ?, ?, ?, ?)`,
    );
    this.#select = database.prepare(
      `SELECT channel_id AS channelId, conversation_kind AS kind, author_id AS authorId, user_id AS userId
       FROM discord_taken_message WHERE message_id = ? AND taken_at >= ?`,
    );
  }

  remember(messageId: string, intent: IntentInput): void {
    this.#insert.run(
      messageId,
      intent.conversation.id,
      intent.conversation.kind,
      intent.sender.platformId,
      intent.userId,
      this.#now(),
    );
  }

  /** Entries past their age are not answered even before an insert prunes them. */
  get(messageId: string): TakenMessage | undefined {
    const row = this.#select.get(messageId, this.#now() - TAKEN_MESSAGE_MAX_AGE_MS) as
      | TakenMessageRow
      | undefined;
    if (!row) return undefined;
    return {
      conversation: { id: row.channelId, kind: row.kind },
      sender: { platformId: row.authorId },
      userId: row.userId,
    };
  }

  has(messageId: string): boolean {
    return this.get(messageId) !== undefined;
  }
}
