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

/**
 * Conversation history and the record of which intents were answered. The embedded default is
 * SQLite (`createSqliteSessionStore`); the record survives restarts so a redelivered platform
 * message is still recognised as a duplicate.
 */
export interface SessionStore {
  /** Whether a turn for this intent was stored. Intent ids are unique per channel. */
  hasIntent(options: { channel: string; intentId: string }): Promise<boolean>;
  /** Stores a turn; storing the same intent twice keeps the first. */
  appendTurn(options: AppendTurnOptions): Promise<void>;
  /** The last `limit` turns of a conversation, oldest first. */
  history(options: { conversationKey: string; limit: number }): Promise<StoredTurn[]>;
  /**
   * Deletes every turn written by these people (`/forget-me`), in direct chats and groups alike; a
   * turn holds the person's message and the assistant's reply to it, so both go. Returns how many.
   * Optional so a store that keeps no history needs nothing.
   */
  forgetPeople?(options: { userIds: readonly string[] }): Promise<number>;
  close(): Promise<void>;
}
