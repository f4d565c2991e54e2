import type { Intent } from '@nexus/protocol';
import type { ConversationList } from './conversation-list.ts';

export type TurnOutcome = 'ok' | 'error' | 'aborted';

/**
 * What a history row is: an exchange (`turn`), or a `note` that tells the model something changed
 * earlier in the conversation (the person edited an older message); a note has no reply.
 */
export type StoredTurnKind = 'turn' | 'note';

/** One exchange in a conversation, as persisted. */
export interface StoredTurn {
  conversationKey: string;
  channel: string;
  userId: string;
  /** The message answered; for a note, the edit that caused it. */
  intentId: string;
  /** Absent means `turn` (rows written before notes existed). */
  kind?: StoredTurnKind;
  userText: string;
  replyText: string;
  outcome: TurnOutcome;
  createdAt: number;
  /** Tokens of `userText` + `replyText`, counted once when stored so history cuts need no re-count. */
  tokenCount?: number;
  /**
   * The id the answer went out under. Set when storing: the answer is also kept as a version of
   * the message (see `replyVersion`). History reads do not return it.
   */
  replyId?: string;
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

/** Where an earlier message of a conversation stands, as an edit or delete of it finds it. */
export type MessageLookup =
  /** Answered: its turn, and whether that turn is still the newest of its conversation. */
  | { state: 'answered'; turn: StoredTurn; latest: boolean }
  /** The person deleted it; an edit of it is ignored and it is never answered again. */
  | { state: 'deleted' }
  /** Never answered here (a command, not addressed, failed, forgotten, from before Nexus ran). */
  | { state: 'unknown' };

/** How a revision (an edit or delete, see `Intent.revises`) changed the stored history. */
export type RevisionChange =
  /** The edited message was the newest turn: its text and reply are replaced by the new turn. */
  | { type: 'replace'; turn: AppendTurnOptions }
  /** An edit of a message never answered, answered now as a new turn stored under the message id. */
  | { type: 'insert'; turn: AppendTurnOptions }
  /** An older message edited: its stored text becomes `userText` and `note` is added to history. */
  | { type: 'note'; userText: string; tokenCount?: number; note: AppendTurnOptions }
  /** The message and the reply to it leave history, with any note about it. */
  | { type: 'delete' }
  /** Nothing changes (same text, not the author's message, already deleted, unknown). */
  | { type: 'none'; reason: string };

export interface ApplyRevisionOptions {
  channel: string;
  /** The revision's own intent id: recorded, so a redelivered revision is a duplicate. */
  intentId: string;
  targetIntentId: string;
  /** Regenerating and choosing a version are recorded as edits of the message's answer. */
  kind: 'edit' | 'delete';
  /** The person who sent the revision. */
  userId: string;
  change: RevisionChange;
  createdAt: number;
}

/**
 * Conversation history and the record of which intents were answered. The embedded default is
 * SQLite (`createSqliteSessionStore`); the record survives restarts so a redelivered platform
 * message is still recognised as a duplicate.
 */
export interface SessionStore {
  /**
   * Each person's conversations as a chat client lists them (the web client's sidebar), over the
   * turns kept here. Optional so a store that keeps no list needs nothing.
   */
  readonly conversations?: ConversationList;
  /**
   * Whether this intent was answered (a turn stored), is in the inbox, was a revision already
   * applied, or is a message the person deleted. Ids are unique per channel.
   */
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
  /** Finds an earlier message by its intent id, for an edit or delete of it. */
  lookUpMessage(key: IntentKey): Promise<MessageLookup>;
  /**
   * Applies an edit or delete to history and, in the same transaction, records the revision
   * (a redelivery is then a duplicate) and finishes its inbox entry.
   */
  applyRevision(options: ApplyRevisionOptions): Promise<void>;
  /**
   * Records that the person is active now (a turn of theirs starts, on any channel, in any
   * conversation) and returns when they were last active before; undefined when never. What
   * "welcome back" measures the gap with. Optional: a store without it falls back to the
   * conversation's own last turn.
   */
  markActive?(options: { userId: string; at: number }): Promise<number | undefined>;
  /**
   * One stored version of the answer to a message (its first answer, one to an edit, a
   * regenerated one), by the reply id it went out under; undefined when not kept. Optional so a
   * store that keeps no versions needs nothing (choosing a version then changes nothing).
   */
  replyVersion?(options: IntentKey & { replyId: string }): Promise<StoredTurn | undefined>;
  /** The last `limit` turns of a conversation (notes included), oldest first. */
  history(options: { conversationKey: string; limit: number }): Promise<StoredTurn[]>;
  /**
   * Deletes every turn written by these people (`/forget-me`), in direct chats and groups alike, and
   * their intake inbox entries; a turn holds the person's message and the assistant's reply to it,
   * so both go. Returns how many.
   * Optional so a store that keeps no history needs nothing.
   */
  forgetPeople?(options: { userIds: readonly string[] }): Promise<number>;
  /**
   * Deletes one conversation's turns (every generation of it, see `/new`) written by these people,
   * for a person deleting a conversation in the web client. Turns of anyone else in it stay.
   * Returns how many. Optional so a store that keeps no history needs nothing.
   */
  forgetConversation?(options: { conversationKey: string; userIds: readonly string[] }): Promise<number>;
  close(): Promise<void>;
}
