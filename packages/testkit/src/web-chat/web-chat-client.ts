import { randomUUID } from 'node:crypto';
import type { ReplyEvent, ServerFrame } from '@nexus/protocol';
import {
  WEB_SOCKET_SUBPROTOCOL,
  WEB_SOCKET_TOKEN_PROTOCOL_PREFIX,
} from '@nexus/protocol/web-socket-constants';
import WebSocket from 'ws';

export interface WebChatClientOptions {
  /** Gateway base URL, e.g. http://127.0.0.1:8787 */
  url: string;
  token: string;
  clientId?: string;
  resume?: { conversationId: string; lastSeq: number };
}

export interface ReceivedReply {
  clientMessageId: string;
  events: ReplyEvent[];
  /** Final text from `reply.end`, or undefined when the turn ended with an error event. */
  text?: string;
  error?: Extract<ReplyEvent, { type: 'error' }>;
  /** The server recognised the message id and will not answer it again. */
  duplicate?: boolean;
}

/**
 * A scripted browser stand-in speaking the web-socket protocol with the real `ws` client, for tests
 * and benchmarks. Keeps every server frame so tests can assert on order and sequence numbers.
 */
export class WebChatClient {
  readonly frames: ServerFrame[] = [];
  readonly clientId: string;
  private readonly socket: WebSocket;
  private readonly waiters = new Set<{
    predicate: (frame: ServerFrame) => boolean;
    resolve: (frame: ServerFrame) => void;
  }>();
  private closed: Promise<{ code: number; reason: string }>;
  private readonly pendingReplies = new Map<
    string,
    {
      clientMessageId: string;
      events: ReplyEvent[];
      resolve: (reply: ReceivedReply) => void;
      reject: (error: Error) => void;
    }[]
  >();

  private constructor(socket: WebSocket, clientId: string) {
    this.socket = socket;
    this.clientId = clientId;
    socket.on('message', (data) => {
      const frame = JSON.parse(data.toString()) as ServerFrame;
      this.frames.push(frame);
      this.trackReply(frame);
      for (const waiter of this.waiters) {
        if (waiter.predicate(frame)) {
          this.waiters.delete(waiter);
          waiter.resolve(frame);
        }
      }
    });
    this.closed = new Promise((resolve) =>
      socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
  }

  static async connect(options: WebChatClientOptions): Promise<WebChatClient> {
    const wsUrl = `${options.url.replace(/^http/, 'ws')}/ws`;
    const socket = new WebSocket(wsUrl, [
      WEB_SOCKET_SUBPROTOCOL,
      `${WEB_SOCKET_TOKEN_PROTOCOL_PREFIX}${options.token}`,
    ]);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
      socket.once('unexpected-response', (_request, response) =>
        reject(new Error(`upgrade refused with HTTP ${response.statusCode}`)),
      );
    });
    const client = new WebChatClient(socket, options.clientId ?? randomUUID());
    const welcome = client.waitFor((frame) => frame.type === 'welcome');
    client.sendRaw(
      JSON.stringify({
        type: 'hello',
        v: 1,
        clientId: client.clientId,
        ...(options.resume ? { resume: options.resume } : {}),
      }),
    );
    await welcome;
    return client;
  }

  sendRaw(data: string | Buffer): void {
    this.socket.send(data);
  }

  /**
   * Sends a message and resolves when its reply ended (reply.end or an error event). Replies within
   * a conversation come in the order messages were sent, and events may overtake `accepted`, so
   * replies are matched to asks in FIFO order per conversation.
   */
  async ask(
    conversationId: string,
    text: string,
    clientMessageId: string = randomUUID(),
  ): Promise<ReceivedReply> {
    const pending = this.pendingReplies.get(conversationId) ?? [];
    this.pendingReplies.set(conversationId, pending);
    const reply = new Promise<ReceivedReply>((resolve, reject) => {
      pending.push({ clientMessageId, events: [], resolve, reject });
    });
    this.sendRaw(JSON.stringify({ type: 'message', clientMessageId, conversationId, text }));
    return reply;
  }

  /**
   * Edits a message this client sent and resolves with the answer to the edit, matched like an
   * `ask` (or `duplicate` when the server already had this change). Only an edit of the newest
   * message is answered; send other edits with `change`.
   */
  async askAgain(
    conversationId: string,
    targetClientMessageId: string,
    text: string,
    clientMessageId: string = randomUUID(),
  ): Promise<ReceivedReply> {
    const pending = this.pendingReplies.get(conversationId) ?? [];
    this.pendingReplies.set(conversationId, pending);
    const reply = new Promise<ReceivedReply>((resolve, reject) => {
      pending.push({ clientMessageId, events: [], resolve, reject });
    });
    this.sendRaw(
      JSON.stringify({ type: 'edit', clientMessageId, conversationId, targetClientMessageId, text }),
    );
    return reply;
  }

  /**
   * Sends an edit (with `text`) or a delete (without) of a message this client sent, and resolves
   * with the server's `accepted` for it; rejects on an `error` for it. Waits for no reply.
   */
  async change(options: {
    conversationId: string;
    targetClientMessageId: string;
    text?: string;
    clientMessageId?: string;
  }): Promise<Extract<ServerFrame, { type: 'accepted' }>> {
    const clientMessageId = options.clientMessageId ?? randomUUID();
    const answer = this.waitFor(
      (frame) =>
        (frame.type === 'accepted' || frame.type === 'error') && frame.clientMessageId === clientMessageId,
    );
    this.sendRaw(
      JSON.stringify({
        type: options.text === undefined ? 'delete' : 'edit',
        clientMessageId,
        conversationId: options.conversationId,
        targetClientMessageId: options.targetClientMessageId,
        ...(options.text === undefined ? {} : { text: options.text }),
      }),
    );
    const frame = await answer;
    if (frame.type === 'error') throw new Error(`change refused: ${frame.code} ${frame.message}`);
    return frame as Extract<ServerFrame, { type: 'accepted' }>;
  }

  private trackReply(frame: ServerFrame): void {
    if (frame.type === 'event') {
      const current = this.pendingReplies.get(frame.conversationId)?.[0];
      if (!current) return;
      current.events.push(frame.event);
      if (frame.event.type === 'reply.end' || frame.event.type === 'error') {
        this.pendingReplies.get(frame.conversationId)!.shift();
        current.resolve({
          clientMessageId: current.clientMessageId,
          events: current.events,
          ...(frame.event.type === 'reply.end' ? { text: frame.event.text } : { error: frame.event }),
        });
      }
      return;
    }
    const refused = frame.type === 'error' && frame.clientMessageId !== undefined;
    const duplicate = frame.type === 'accepted' && frame.duplicate;
    if (!refused && !duplicate) return;
    for (const [conversationId, pending] of this.pendingReplies) {
      const index = pending.findIndex((entry) => entry.clientMessageId === frame.clientMessageId);
      if (index === -1) continue;
      const [entry] = pending.splice(index, 1);
      if (refused && frame.type === 'error')
        entry!.reject(new Error(`message refused: ${frame.code} ${frame.message}`));
      else entry!.resolve({ clientMessageId: entry!.clientMessageId, events: [], duplicate: true });
      if (pending.length === 0) this.pendingReplies.delete(conversationId);
      return;
    }
  }

  /** Resolves with the first frame (already received or future) matching the predicate. */
  waitFor(predicate: (frame: ServerFrame) => boolean, timeoutMs = 10_000): Promise<ServerFrame> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(
          new Error(
            `no matching frame within ${timeoutMs} ms; last frames: ${JSON.stringify(this.frames.slice(-3))}`,
          ),
        );
      }, timeoutMs);
      const waiter = {
        predicate,
        resolve: (frame: ServerFrame) => {
          clearTimeout(timer);
          resolve(frame);
        },
      };
      this.waiters.add(waiter);
    });
  }

  eventsOf(conversationId: string): { seq: number; event: ReplyEvent }[] {
    return this.frames.flatMap((frame) =>
      frame.type === 'event' && frame.conversationId === conversationId
        ? [{ seq: frame.seq, event: frame.event }]
        : [],
    );
  }

  whenClosed(): Promise<{ code: number; reason: string }> {
    return this.closed;
  }

  async close(): Promise<void> {
    if (this.socket.readyState === WebSocket.CLOSED) return;
    this.socket.close(1000);
    await Promise.race([this.closed, new Promise((resolve) => setTimeout(resolve, 1000))]);
    this.socket.terminate();
  }
}
