import type { Intent } from '@nexus/protocol';

export type TurnOutcome = 'ok' | 'error' | 'aborted';

/** One exchange in a conversation, as persisted. */
export interface StoredTurn {
  conversationKey: string;
  channel: string;
  userId: string;
  intentId: string;
  userText: string;
  replyText: string;
  outcome: TurnOutcome;
  createdAt: number;
  /** Tokens of `userText` + `replyText`, counted once when stored so history cuts need no re-count. */
  tokenCount?: number;
}

export type AppendTurnOptions = StoredTurn;

export interface IntentKey {
  channel: string;
  intentId: string;
}

/** What an inbox entry is waiting for: a model turn, or an answer that needs no model (a command). */
export type InboxEntryKind = 'turn' | 'reply';

/** An intent core accepted and has not finished answering; it survives a restart. */
export interface InboxEntry {
  channel: string;
  intentId: string;
  conversationKey: string;
  kind: InboxEntryKind;
  /** The intent as the channel handed it in (validated), for deciding access again on replay. */
  intent: Intent;
  /** The intent the access step decided on (the person resolved); what a turn runs with. */
  decided: Intent;
  /** A command's answer, once worked out: replay delivers it instead of running the command again. */
  replyText?: string;
  acceptedAt: number;
  /** How many starts replayed it already; one that never finishes is given up on, not replayed forever. */
  replays: number;
}

export type AdmitIntentOptions = Omit<InboxEntry, 'replyText' | 'replays'>;

/**
 * Conversation history and the record of which intents were answered. The embedded default is
 * SQLite (`createSqliteSessionStore`); the record survives restarts so a redelivered platform
 * message is still recognised as a duplicate.
 */
export interface SessionStore {
  /** Whether this intent was answered (a turn stored) or is in the inbox. Ids are unique per channel. */
  hasIntent(options: { channel: string; intentId: string }): Promise<boolean>;
  /**
   * Stores a turn and, in the same transaction, finishes the intent's inbox entry; storing the
   * same intent twice keeps the first.
   */
  appendTurn(options: AppendTurnOptions): Promise<void>;
  /**
   * The durable half of intake: in one transaction, `duplicate` when the intent was answered or is
   * already in the inbox, otherwise the entry is written and `admitted`. Throws when the store is
   * busy or full; nothing is written then.
   */
  admitIntent(entry: AdmitIntentOptions): Promise<'admitted' | 'duplicate'>;
  /** Keeps a command's answer with its entry, so a replay delivers the same words. */
  recordReply(options: IntentKey & { replyText: string }): Promise<void>;
  /** Removes an inbox entry that ends without a turn (a command answered, a retryable failure). */
  finishIntent(options: IntentKey): Promise<void>;
  /** Records that a start is replaying the entry (committed before the replay runs). */
  countReplay(options: IntentKey): Promise<void>;
  /** Entries not finished yet, in the order they were accepted. */
  unfinishedIntents(): Promise<InboxEntry[]>;
  /** The last `limit` turns of a conversation, oldest first. */
  history(options: { conversationKey: string; limit: number }): Promise<StoredTurn[]>;
  /**
   * Deletes every turn written by these people (`/forget-me`), in direct chats and groups alike, and
   * their intake inbox entries; a turn holds the person's message and the assistant's reply to it,
   * so both go. Returns how many.
   * Optional so a store that keeps no history needs nothing.
   */
  forgetPeople?(options: { userIds: readonly string[] }): Promise<number>;
  close(): Promise<void>;
}
