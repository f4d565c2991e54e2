/**
 * A person's conversations as a chat client lists them (the web client's sidebar): kept on the
 * gateway so every browser of that person sees the same list. The messages themselves are the
 * turns the session store keeps; this list only names and orders them.
 */
export interface ConversationEntry {
  channel: string;
  conversationId: string;
  /** The person the conversation belongs to: on the web channel, their client id. */
  owner: string;
  title: string;
  /** Set when the person gave the title; it then no longer follows the first message. */
  renamed: boolean;
  createdAt: number;
  updatedAt: number;
  /** When the person deleted it; a deleted conversation stays as a tombstone so no stale copy brings it back. */
  deletedAt?: number;
}

/** One exchange of a conversation as a client shows it (notes for the model are left out). */
export interface ConversationMessage {
  /** The row's position in the store: page further back with `before`. */
  seq: number;
  intentId: string;
  userText: string;
  replyText: string;
  outcome: 'ok' | 'error' | 'aborted';
  /** The reply id the shown answer went out under, when a version of it was kept. */
  replyId?: string;
  createdAt: number;
}

/** A message the person's browser held before the list was kept on the gateway (see `importConversation`). */
export interface ImportedExchange {
  intentId: string;
  userText: string;
  replyText: string;
  createdAt: number;
}

export type ImportOutcome =
  /** The conversation and its messages were stored. */
  | 'imported'
  /** It was listed already (an earlier import, or it was used here): nothing changed. */
  | 'present'
  /** The person deleted it on another device: it stays deleted. */
  | 'deleted'
  /** Another person's conversation has this id: refused. */
  | 'foreign';

export interface ConversationList {
  /** A person's conversations, not deleted, most recently active first, at most `limit`. */
  list(options: { channel: string; owner: string; limit: number }): Promise<ConversationEntry[]>;
  /** One conversation (deleted ones too), whoever owns it; undefined when never listed. */
  get(options: { channel: string; conversationId: string }): Promise<ConversationEntry | undefined>;
  /**
   * Lists a conversation for `owner` when a message of theirs is taken (a new one gets `title`), or
   * marks it active; a deleted one is listed again. Undefined when another person owns the id.
   */
  claim(options: {
    channel: string;
    conversationId: string;
    owner: string;
    title: string;
    at: number;
  }): Promise<ConversationEntry | undefined>;
  /** Marks a listed conversation active (a turn was stored); undefined when it is not listed. */
  touch(options: {
    channel: string;
    conversationId: string;
    at: number;
  }): Promise<ConversationEntry | undefined>;
  /**
   * The person's own title; undefined when it is not theirs or deleted. A rename is not activity:
   * the conversation keeps its place in the list.
   */
  rename(options: {
    channel: string;
    conversationId: string;
    owner: string;
    title: string;
  }): Promise<ConversationEntry | undefined>;
  /** Leaves a tombstone; false when it is not the owner's or not listed. */
  markDeleted(options: {
    channel: string;
    conversationId: string;
    owner: string;
    at: number;
  }): Promise<boolean>;
  /**
   * The newest `limit` exchanges of a conversation (every generation of it after `/new`) older than
   * `before` (a `seq`), oldest first, and whether older ones remain.
   */
  messages(options: {
    channel: string;
    conversationId: string;
    limit: number;
    before?: number;
  }): Promise<{ messages: ConversationMessage[]; more: boolean }>;
  /**
   * Carries a conversation a browser held into the store, once: listed for `owner` and, when the
   * gateway has no turn of it, its exchanges stored as turns of `userId` (so the model sees them
   * too). Running it again changes nothing.
   */
  importConversation(options: {
    channel: string;
    owner: string;
    userId: string;
    conversationId: string;
    title: string;
    renamed: boolean;
    createdAt: number;
    updatedAt: number;
    exchanges: readonly ImportedExchange[];
  }): Promise<ImportOutcome>;
}
