import type { ServerFrame } from '@nexus/protocol';
import type { BackoffOptions } from './backoff.ts';
import { ChatConnection, type ConnectionStatus } from './chat-connection.ts';
import {
  addUserMessage,
  applyServerFrame,
  type ConversationState,
  emptyConversation,
  markPending,
} from './conversation-state.ts';
import type { ChatStorage } from './storage.ts';
import { isTokenRejected } from './token-check.ts';

export interface ChatSnapshot {
  conversation: ConversationState;
  connection: ConnectionStatus;
  /** From `welcome.notice`: something the operator must act on, e.g. configure a model provider. */
  notice?: string;
  /** From `welcome.limits`, once known. */
  maxTextChars?: number;
}

export type SendResult = { ok: true; clientMessageId: string } | { ok: false; reason: string };

export interface ChatSessionOptions {
  url: string;
  token: string;
  storage: ChatStorage;
  randomId: () => string;
  createWebSocket?: (url: string, protocols: string[]) => WebSocket;
  /** Defaults to asking the gateway over HTTP (see token-check.ts). */
  isTokenRejected?: () => Promise<boolean>;
  backoff?: BackoffOptions;
  random?: () => number;
  /** Storage writes are coalesced (a reply streams many deltas). Default 300 ms. */
  persistDelayMs?: number;
}

/**
 * The chat as the page sees it: the conversation (restored from storage, updated by server
 * frames, saved back), the connection status and the welcome notice, as immutable snapshots.
 */
export class ChatSession {
  readonly #options: ChatSessionOptions;
  readonly #connection: ChatConnection;
  readonly #listeners = new Set<(snapshot: ChatSnapshot) => void>();
  #snapshot: ChatSnapshot;
  #persistTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(options: ChatSessionOptions) {
    this.#options = options;
    const conversation = options.storage.readConversation() ?? emptyConversation(options.randomId());
    this.#connection = new ChatConnection({
      url: options.url,
      token: options.token,
      clientId: options.storage.clientId(),
      resumePoint: () => {
        const { conversationId, lastSeq, messages } = this.#snapshot.conversation;
        // A conversation with nothing in it has nothing to replay.
        return messages.length > 0 ? { conversationId, lastSeq } : undefined;
      },
      onFrame: (frame) => this.#receive(frame),
      onStatus: (connection) => this.#update({ connection }),
      createWebSocket: options.createWebSocket,
      isTokenRejected:
        options.isTokenRejected ?? (() => isTokenRejected({ url: options.url, token: options.token })),
      backoff: options.backoff,
      random: options.random,
    });
    this.#snapshot = { conversation, connection: this.#connection.status };
  }

  get snapshot(): ChatSnapshot {
    return this.#snapshot;
  }

  subscribe(listener: (snapshot: ChatSnapshot) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Connects, and queues again the messages a previous page left unsent. */
  start(): void {
    const { conversationId, messages } = this.#snapshot.conversation;
    for (const message of messages) {
      if (message.role === 'user' && message.state === 'pending') {
        this.#connection.sendMessage({ clientMessageId: message.id, conversationId, text: message.text });
      }
    }
    this.#connection.start();
  }

  stop(): void {
    this.#connection.stop();
    this.flush();
  }

  send(text: string): SendResult {
    const trimmed = text.trim();
    if (trimmed === '') return { ok: false, reason: 'Type a message first.' };
    const limit = this.#snapshot.maxTextChars;
    if (limit !== undefined && trimmed.length > limit) {
      return { ok: false, reason: `This message is too long (limit ${limit} characters).` };
    }
    const clientMessageId = this.#options.randomId();
    const conversation = addUserMessage(this.#snapshot.conversation, { clientMessageId, text: trimmed });
    this.#update({ conversation });
    this.#connection.sendMessage({
      clientMessageId,
      conversationId: conversation.conversationId,
      text: trimmed,
    });
    return { ok: true, clientMessageId };
  }

  /** Sends a failed message again under its original id, so the server still answers it once. */
  retry(clientMessageId: string): void {
    const before = this.#snapshot.conversation;
    const message = before.messages.find((entry) => entry.id === clientMessageId && entry.role === 'user');
    if (message === undefined || message.state !== 'failed') return;
    this.#update({ conversation: markPending(before, clientMessageId) });
    this.#connection.sendMessage({
      clientMessageId,
      conversationId: before.conversationId,
      text: message.text,
    });
  }

  newConversation(): void {
    this.#update({ conversation: emptyConversation(this.#options.randomId()) });
    this.flush();
  }

  reconnectNow(): void {
    this.#connection.reconnectNow();
  }

  /** Writes the conversation to storage now (call on page hide; a reload must not lose it). */
  flush(): void {
    clearTimeout(this.#persistTimer);
    this.#persistTimer = undefined;
    const { conversationId, lastSeq, messages } = this.#snapshot.conversation;
    this.#options.storage.writeConversation({ conversationId, lastSeq, messages });
  }

  #receive(frame: ServerFrame): void {
    if (frame.type === 'welcome') {
      this.#update({ notice: frame.notice, maxTextChars: frame.limits.maxTextChars });
      return;
    }
    const conversation = applyServerFrame(this.#snapshot.conversation, frame);
    if (conversation !== this.#snapshot.conversation) this.#update({ conversation });
  }

  #update(change: Partial<ChatSnapshot>): void {
    const previous = this.#snapshot;
    this.#snapshot = { ...previous, ...change };
    if (this.#snapshot.conversation !== previous.conversation) this.#schedulePersist();
    for (const listener of this.#listeners) listener(this.#snapshot);
  }

  #schedulePersist(): void {
    if (this.#persistTimer !== undefined) return;
    this.#persistTimer = setTimeout(() => this.flush(), this.#options.persistDelayMs ?? 300);
  }
}
