import type { ReplyMedia } from '@nexus/protocol';
import {
  type ConversationSummary,
  isConversationId,
  MAX_TITLE_CHARS,
  matchesQuery,
  titleFromMessages,
  toConversationIndex,
} from './conversation-index.ts';
import type { ChatMessage, ChatMessageRole, ChatMessageState, SentAttachment } from './conversation-state.ts';

/** The part of the Web Storage API used here; `localStorage` in the browser. */
export interface KeyValueStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

export interface StoredConversation {
  conversationId: string;
  lastSeq: number;
  messages: ChatMessage[];
}

export interface ChatStorageOptions {
  store: KeyValueStore;
  randomId: () => string;
  /** Older messages are dropped beyond this, keeping well inside the ~5 MB storage quota. Default 300. */
  maxMessages?: number;
  /** Conversations kept; the least recently used beyond this are forgotten. Default 100. */
  maxConversations?: number;
  now?: () => number;
}

const keys = {
  token: 'nexus.token',
  clientId: 'nexus.clientId',
  /** Before the conversations list: the one conversation. Read once and moved. */
  legacyConversation: 'nexus.conversation',
  current: 'nexus.currentConversation',
  index: 'nexus.conversations',
  conversation: (id: string) => `nexus.conversation.${id}`,
} as const;
/**
 * Reply files above this many base64 characters are kept without their bytes (storage holds
 * ~5 MB in all); after a reload the page shows their name and size only.
 */
const MAX_STORED_MEDIA_CHARS = 256 * 1024;
const attachmentKinds: readonly SentAttachment['kind'][] = ['image', 'audio', 'voice', 'document'];
const mediaKinds: readonly ReplyMedia['kind'][] = ['image', 'file', 'audio'];
const roles: readonly ChatMessageRole[] = ['user', 'assistant', 'error'];
const states: readonly ChatMessageState[] = ['pending', 'sent', 'failed', 'streaming', 'done'];

/**
 * Everything the client keeps across reloads. Storage can be missing, full or hand-edited, so
 * every read validates and every write tolerates failure: losing history must never stop the chat.
 */
export class ChatStorage {
  readonly #store: KeyValueStore;
  readonly #randomId: () => string;
  readonly #maxMessages: number;
  readonly #maxConversations: number;
  readonly #now: () => number;

  constructor(options: ChatStorageOptions) {
    this.#store = options.store;
    this.#randomId = options.randomId;
    this.#maxMessages = options.maxMessages ?? 300;
    this.#maxConversations = options.maxConversations ?? 100;
    this.#now = options.now ?? Date.now;
  }

  readToken(): string | undefined {
    return this.#read(keys.token) || undefined;
  }

  writeToken(token: string): void {
    this.#write(keys.token, token);
  }

  clearToken(): void {
    this.#remove(keys.token);
  }

  /** This browser's stable id, created on first use. */
  clientId(): string {
    const existing = this.#read(keys.clientId);
    if (existing && existing.length <= 128) return existing;
    const created = this.#randomId();
    this.#write(keys.clientId, created);
    return created;
  }

  /** The conversation shown last (or `conversationId`'s), as stored. */
  readConversation(conversationId?: string): StoredConversation | undefined {
    const id = conversationId ?? this.#read(keys.current);
    if (id === undefined) return this.#readLegacy();
    if (!isConversationId(id)) return undefined;
    const stored = parseJson(this.#read(keys.conversation(id)));
    const conversation = stored === undefined ? undefined : toStoredConversation(stored);
    return conversation?.conversationId === id ? conversation : undefined;
  }

  /** Remembers which conversation is shown, so a reload opens it again. */
  writeCurrentConversation(conversationId: string): void {
    this.#write(keys.current, conversationId);
  }

  /** Every stored conversation, most recently active first. */
  listConversations(): ConversationSummary[] {
    return toConversationIndex(parseJson(this.#read(keys.index)));
  }

  /** The conversations whose title or any message contains every word of `query`. */
  searchConversations(query: string): ConversationSummary[] {
    const all = this.listConversations();
    if (query.trim() === '') return all;
    return all.filter((summary) => {
      if (matchesQuery(summary, query)) return true;
      const messages = this.readConversation(summary.conversationId)?.messages ?? [];
      return messages.some((message) => matchesQuery({ ...summary, title: message.text }, query));
    });
  }

  /** Gives a conversation the person's own title; false when there is no such conversation. */
  renameConversation(conversationId: string, title: string): boolean {
    const index = this.listConversations();
    const entry = index.find((summary) => summary.conversationId === conversationId);
    const trimmed = title.replace(/\s+/g, ' ').trim().slice(0, MAX_TITLE_CHARS);
    if (entry === undefined || trimmed === '') return false;
    entry.title = trimmed;
    entry.renamed = true;
    return this.#write(keys.index, JSON.stringify(index));
  }

  /** Forgets a conversation in this browser (its messages and its list entry). */
  removeConversation(conversationId: string): void {
    this.#remove(keys.conversation(conversationId));
    const index = this.listConversations().filter((summary) => summary.conversationId !== conversationId);
    this.#write(keys.index, JSON.stringify(index));
  }

  /**
   * Stores the conversation and makes it the current one. A conversation without messages is not
   * listed. Returns false when nothing could be stored even after dropping older messages.
   */
  writeConversation(conversation: StoredConversation): boolean {
    this.writeCurrentConversation(conversation.conversationId);
    if (conversation.messages.length === 0)
      return this.#write(keys.conversation(conversation.conversationId), JSON.stringify(conversation));
    this.#index(conversation);
    let messages = conversation.messages.slice(-this.#maxMessages).map(withoutLargeMedia);
    for (;;) {
      const stored: StoredConversation = {
        conversationId: conversation.conversationId,
        lastSeq: conversation.lastSeq,
        messages,
      };
      if (this.#write(keys.conversation(conversation.conversationId), JSON.stringify(stored))) return true;
      if (messages.length === 0) return false;
      messages = messages.slice(Math.ceil(messages.length / 2));
    }
  }

  /** Adds or refreshes the conversation's list entry; the least recently used beyond the cap go. */
  #index(conversation: StoredConversation): void {
    const now = this.#now();
    const index = this.listConversations();
    const existing = index.find((summary) => summary.conversationId === conversation.conversationId);
    const title = existing?.renamed ? existing.title : titleFromMessages(conversation.messages);
    const activity = conversation.messages.length + conversation.lastSeq;
    const entry: ConversationSummary = {
      ...(existing ?? { createdAt: now }),
      conversationId: conversation.conversationId,
      title,
      updatedAt: existing?.activity === activity ? existing.updatedAt : now,
      activity,
    };
    const others = index.filter((summary) => summary.conversationId !== conversation.conversationId);
    const kept = [entry, ...others].sort((a, b) => b.updatedAt - a.updatedAt);
    for (const dropped of kept.splice(this.#maxConversations))
      this.#remove(keys.conversation(dropped.conversationId));
    this.#write(keys.index, JSON.stringify(kept));
  }

  #readLegacy(): StoredConversation | undefined {
    const stored = parseJson(this.#read(keys.legacyConversation));
    const conversation = stored === undefined ? undefined : toStoredConversation(stored);
    if (conversation !== undefined && this.writeConversation(conversation))
      this.#remove(keys.legacyConversation);
    return conversation;
  }

  #read(key: string): string | undefined {
    try {
      return this.#store.getItem(key) ?? undefined;
    } catch {
      return undefined;
    }
  }

  #write(key: string, value: string): boolean {
    try {
      this.#store.setItem(key, value);
      return true;
    } catch {
      return false;
    }
  }

  #remove(key: string): void {
    try {
      this.#store.removeItem(key);
    } catch {
      // Storage unavailable: nothing stored, nothing to remove.
    }
  }
}

/** A KeyValueStore in memory, for when `localStorage` is unavailable (e.g. blocked by the browser). */
export function memoryKeyValueStore(): KeyValueStore {
  const entries = new Map<string, string>();
  return {
    getItem: (key) => entries.get(key) ?? null,
    setItem: (key, value) => void entries.set(key, String(value)),
    removeItem: (key) => void entries.delete(key),
  };
}

function parseJson(raw: string | undefined): unknown {
  if (raw === undefined) return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

function toStoredConversation(value: unknown): StoredConversation | undefined {
  if (!isRecord(value)) return undefined;
  const { conversationId, lastSeq, messages } = value;
  if (!isConversationId(conversationId)) return undefined;
  if (typeof lastSeq !== 'number' || !Number.isSafeInteger(lastSeq) || lastSeq < 0) return undefined;
  if (!Array.isArray(messages)) return undefined;
  return { conversationId, lastSeq, messages: messages.flatMap((message) => toChatMessage(message) ?? []) };
}

function toChatMessage(value: unknown): ChatMessage | undefined {
  if (!isRecord(value)) return undefined;
  const {
    id,
    role,
    text,
    state,
    failure,
    retryable,
    attachments,
    media,
    edited,
    deleted,
    superseded,
    stopped,
  } = value;
  if (typeof id !== 'string' || typeof text !== 'string') return undefined;
  if (!roles.includes(role as ChatMessageRole) || !states.includes(state as ChatMessageState))
    return undefined;
  const message: ChatMessage = { id, role: role as ChatMessageRole, text, state: state as ChatMessageState };
  if (typeof failure === 'string') message.failure = failure;
  if (typeof retryable === 'boolean') message.retryable = retryable;
  if (edited === true) message.edited = true;
  if (deleted === true) message.deleted = true;
  if (superseded === true) message.superseded = true;
  if (stopped === true) message.stopped = true;
  if (Array.isArray(attachments))
    message.attachments = attachments.flatMap((entry) => toAttachment(entry) ?? []);
  if (Array.isArray(media)) message.media = media.flatMap((entry) => toReplyMedia(entry) ?? []);
  return message;
}

function toAttachment(value: unknown): SentAttachment | undefined {
  if (!isRecord(value) || !attachmentKinds.includes(value.kind as SentAttachment['kind'])) return undefined;
  return {
    kind: value.kind as SentAttachment['kind'],
    ...(typeof value.name === 'string' ? { name: value.name } : {}),
    ...(typeof value.sizeBytes === 'number' ? { sizeBytes: value.sizeBytes } : {}),
    ...(typeof value.uploadId === 'string' ? { uploadId: value.uploadId } : {}),
  };
}

function toReplyMedia(value: unknown): ReplyMedia | undefined {
  if (!isRecord(value) || !mediaKinds.includes(value.kind as ReplyMedia['kind'])) return undefined;
  const { mimeType, name, sizeBytes, base64 } = value;
  if (typeof mimeType !== 'string' || typeof name !== 'string' || typeof sizeBytes !== 'number')
    return undefined;
  return {
    kind: value.kind as ReplyMedia['kind'],
    mimeType,
    name,
    sizeBytes,
    base64: typeof base64 === 'string' && /^[A-Za-z0-9+/=]*$/.test(base64) ? base64 : '',
  };
}

function withoutLargeMedia(message: ChatMessage): ChatMessage {
  if (!message.media?.some((media) => media.base64.length > MAX_STORED_MEDIA_CHARS)) return message;
  return {
    ...message,
    media: message.media.map((media) =>
      media.base64.length > MAX_STORED_MEDIA_CHARS ? { ...media, base64: '' } : media,
    ),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
