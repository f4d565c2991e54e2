import type { ReplyMedia } from '@nexus/protocol';
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
}

const keys = {
  token: 'nexus.token',
  clientId: 'nexus.clientId',
  conversation: 'nexus.conversation',
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

  constructor(options: ChatStorageOptions) {
    this.#store = options.store;
    this.#randomId = options.randomId;
    this.#maxMessages = options.maxMessages ?? 300;
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

  readConversation(): StoredConversation | undefined {
    const raw = this.#read(keys.conversation);
    if (raw === undefined) return undefined;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      return undefined;
    }
    return toStoredConversation(value);
  }

  /** Returns false when nothing could be stored even after dropping older messages. */
  writeConversation(conversation: StoredConversation): boolean {
    let messages = conversation.messages.slice(-this.#maxMessages).map(withoutLargeMedia);
    for (;;) {
      const stored: StoredConversation = {
        conversationId: conversation.conversationId,
        lastSeq: conversation.lastSeq,
        messages,
      };
      if (this.#write(keys.conversation, JSON.stringify(stored))) return true;
      if (messages.length === 0) return false;
      messages = messages.slice(Math.ceil(messages.length / 2));
    }
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

function toStoredConversation(value: unknown): StoredConversation | undefined {
  if (!isRecord(value)) return undefined;
  const { conversationId, lastSeq, messages } = value;
  if (typeof conversationId !== 'string' || !/^[A-Za-z0-9_-]{1,128}$/.test(conversationId)) return undefined;
  if (typeof lastSeq !== 'number' || !Number.isSafeInteger(lastSeq) || lastSeq < 0) return undefined;
  if (!Array.isArray(messages)) return undefined;
  return { conversationId, lastSeq, messages: messages.flatMap((message) => toChatMessage(message) ?? []) };
}

function toChatMessage(value: unknown): ChatMessage | undefined {
  if (!isRecord(value)) return undefined;
  const { id, role, text, state, failure, retryable, attachments, media, edited, deleted, superseded } =
    value;
  if (typeof id !== 'string' || typeof text !== 'string') return undefined;
  if (!roles.includes(role as ChatMessageRole) || !states.includes(state as ChatMessageState))
    return undefined;
  const message: ChatMessage = { id, role: role as ChatMessageRole, text, state: state as ChatMessageState };
  if (typeof failure === 'string') message.failure = failure;
  if (typeof retryable === 'boolean') message.retryable = retryable;
  if (edited === true) message.edited = true;
  if (deleted === true) message.deleted = true;
  if (superseded === true) message.superseded = true;
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
