import type { ClientFrame, ServerFrame } from '@nexus/protocol';
import {
  WEB_SOCKET_SUBPROTOCOL,
  WEB_SOCKET_TOKEN_PROTOCOL_PREFIX,
} from '@nexus/protocol/web-socket-constants';
import WebSocket from 'ws';

interface OutgoingMessage {
  conversationId: string;
  text: string;
}

export interface ResendingWebClientOptions {
  token: string;
  clientId: string;
  /** Every `reply.end`, once per event (events seen twice by seq are dropped first). */
  onReply: (reply: { text: string; replyId: string; conversationId: string }) => void;
}

/**
 * A web client that survives gateway restarts the way apps/web's does: a message stays queued
 * until the server says `accepted` (or refuses it for good) and is sent again under the same
 * `clientMessageId` after each welcome; every conversation is resumed from the last seq seen,
 * and events are de-duplicated by seq. Speaks the real protocol over `ws`.
 */
export class ResendingWebClient {
  readonly #options: ResendingWebClientOptions;
  readonly #outbox = new Map<string, OutgoingMessage>();
  readonly #seen = new Map<string, Set<number>>();
  readonly #lastSeq = new Map<string, number>();
  #socket: WebSocket | undefined;
  #welcomed = false;
  #closed: Promise<void> = Promise.resolve();
  /** Messages the server refused for good (not `shutting_down`): a restart test expects none. */
  readonly refusals: Extract<ServerFrame, { type: 'error' }>[] = [];
  /** Retryable `error` events in a reply stream (turns aborted by shutdown). */
  abortedReplies = 0;
  /** `accepted` frames that said duplicate: a resend the server already had. */
  duplicatesAccepted = 0;

  constructor(options: ResendingWebClientOptions) {
    this.#options = options;
  }

  get queued(): number {
    return this.#outbox.size;
  }

  /** Opens a connection, says hello, resumes every known conversation and resends the outbox. */
  async connect(url: string): Promise<void> {
    const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/ws`, [
      WEB_SOCKET_SUBPROTOCOL,
      `${WEB_SOCKET_TOKEN_PROTOCOL_PREFIX}${this.#options.token}`,
    ]);
    this.#socket = socket;
    this.#welcomed = false;
    this.#closed = new Promise((resolve) => socket.once('close', () => resolve()));
    socket.on('error', () => {});
    const welcomed = new Promise<void>((resolve, reject) => {
      socket.once('close', () => reject(new Error('closed before the welcome')));
      socket.on('message', (data) => {
        const frame = JSON.parse(data.toString()) as ServerFrame;
        if (frame.type === 'welcome') resolve();
        this.#receive(frame);
      });
    });
    // When the socket never opens, the open below rejects first: the welcome's rejection must not
    // go unhandled (a reconnecting caller retries).
    welcomed.catch(() => undefined);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    this.#sendFrame({ type: 'hello', v: 1, clientId: this.#options.clientId });
    await welcomed;
  }

  /** Queues a message and sends it now when welcomed. */
  send(clientMessageId: string, conversationId: string, text: string): void {
    this.#outbox.set(clientMessageId, { conversationId, text });
    if (!this.#seen.has(conversationId)) this.#seen.set(conversationId, new Set());
    if (this.#welcomed) this.#transmit(clientMessageId);
  }

  whenClosed(): Promise<void> {
    return this.#closed;
  }

  async close(): Promise<void> {
    this.#socket?.close(1000);
    await Promise.race([this.#closed, new Promise((resolve) => setTimeout(resolve, 1000))]);
    this.#socket?.terminate();
  }

  #receive(frame: ServerFrame): void {
    switch (frame.type) {
      case 'welcome':
        this.#welcomed = true;
        for (const conversationId of this.#seen.keys()) {
          const lastSeq = this.#lastSeq.get(conversationId) ?? 0;
          this.#sendFrame({ type: 'resume', conversationId, lastSeq });
        }
        for (const clientMessageId of this.#outbox.keys()) this.#transmit(clientMessageId);
        return;
      case 'accepted':
        this.#outbox.delete(frame.clientMessageId);
        if (frame.duplicate) this.duplicatesAccepted += 1;
        return;
      case 'error':
        if (frame.clientMessageId === undefined) return;
        if (frame.code === 'shutting_down' && frame.retryable) return;
        this.#outbox.delete(frame.clientMessageId);
        this.refusals.push(frame);
        return;
      case 'event': {
        const seen = this.#seen.get(frame.conversationId) ?? new Set<number>();
        this.#seen.set(frame.conversationId, seen);
        if (seen.has(frame.seq)) return;
        seen.add(frame.seq);
        this.#lastSeq.set(
          frame.conversationId,
          Math.max(frame.seq, this.#lastSeq.get(frame.conversationId) ?? 0),
        );
        if (frame.event.type === 'reply.end') {
          const { text, replyId } = frame.event;
          this.#options.onReply({ text, replyId, conversationId: frame.conversationId });
        }
        if (frame.event.type === 'error' && frame.event.retryable) this.abortedReplies += 1;
        return;
      }
      default:
        return;
    }
  }

  #transmit(clientMessageId: string): void {
    const message = this.#outbox.get(clientMessageId);
    if (message === undefined) return;
    this.#sendFrame({ type: 'message', clientMessageId, ...message });
  }

  #sendFrame(frame: ClientFrame): void {
    // A socket that is closing keeps the message in the outbox; it goes again after the next welcome.
    if (this.#socket?.readyState === WebSocket.OPEN) this.#socket.send(JSON.stringify(frame));
  }
}
