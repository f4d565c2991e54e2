// Test-only helpers for the integration tests: a real node:http server with the channel attached,
// a recording intake, and a thin real `ws` client. Not exported from the package.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type {
  CancelSink,
  ConversationRef,
  IntakeResult,
  IntentInput,
  ReplyCancelRequest,
  ReplyEvent,
  ServerFrame,
} from '@nexus/protocol';
import { WEB_SOCKET_SUBPROTOCOL, WEB_SOCKET_TOKEN_PROTOCOL_PREFIX } from '@nexus/protocol';
import WebSocket, { type ClientOptions } from 'ws';
import { createWebSocketChannel, type WebSocketChannel } from '../web-socket-channel.ts';
import type { WebSocketChannelOptions } from '../web-socket-channel-options.ts';

export const TEST_TOKEN = 'test-token-3f9a';

export interface Harness {
  channel: WebSocketChannel;
  server: Server;
  url: string;
  /** Every intent the channel handed to the intake, in order. */
  intents: IntentInput[];
  /** Replaces how the intake answers (default: accepted, duplicate for a repeated id). */
  setSink(sink: (intent: IntentInput) => Promise<IntakeResult>): void;
  /** Every Stop the channel passed to core, in order. */
  cancels: ReplyCancelRequest[];
  /** Replaces how core answers a Stop (default: `not_running`). */
  setCancel(cancel: CancelSink): void;
  /** What core would do: stream events for the conversation of a recorded intent. */
  deliver(intent: IntentInput, events: ReplyEvent[] | AsyncIterable<ReplyEvent>): Promise<void>;
  close(): Promise<void>;
}

export function refOf(intent: IntentInput): ConversationRef {
  return {
    channel: intent.channel,
    conversationId: intent.conversation.id,
    kind: intent.conversation.kind,
    intentId: intent.id,
    userId: intent.userId,
    senderPlatformId: intent.sender.platformId,
  };
}

export async function startHarness(options: Partial<WebSocketChannelOptions> = {}): Promise<Harness> {
  const intents: IntentInput[] = [];
  const seen = new Set<string>();
  let sink = async (intent: IntentInput): Promise<IntakeResult> => {
    if (seen.has(intent.id)) return { status: 'duplicate' };
    seen.add(intent.id);
    return { status: 'accepted' };
  };
  const cancels: ReplyCancelRequest[] = [];
  let cancel: CancelSink = () => 'not_running';
  const channel = createWebSocketChannel({ token: TEST_TOKEN, ...options });
  const server = createServer((request, response) => {
    if (channel.handleRequest(request, response)) return;
    response.statusCode = 404;
    response.end();
  });
  server.on('upgrade', (request, socket, head) => {
    if (!channel.handleUpgrade(request, socket, head)) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await channel.start({
    sink: (intent) => {
      intents.push(intent);
      return sink(intent);
    },
    cancel: (request) => {
      cancels.push(request);
      return cancel(request);
    },
  });
  return {
    channel,
    server,
    url: `ws://127.0.0.1:${port}`,
    intents,
    setSink(next) {
      sink = next;
    },
    cancels,
    setCancel(next) {
      cancel = next;
    },
    async deliver(intent, events) {
      const iterable = Array.isArray(events) ? toAsync(events) : events;
      await channel.deliver({ conversation: refOf(intent), events: iterable });
    },
    async close() {
      await channel.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function* toAsync<T>(items: T[]): AsyncIterable<T> {
  yield* items;
}

export interface Closed {
  code: number;
  reason: string;
}

/** A real `ws` client that records server frames and lets a test wait for specific ones. */
export class TestClient {
  readonly socket: WebSocket;
  readonly frames: ServerFrame[] = [];
  readonly closed: Promise<Closed>;
  #waiters: Array<{ predicate: (frame: ServerFrame) => boolean; resolve: (frame: ServerFrame) => void }> = [];
  #cursor = 0;

  constructor(socket: WebSocket) {
    this.socket = socket;
    socket.on('message', (data) => {
      const frame = JSON.parse(String(data)) as ServerFrame;
      this.frames.push(frame);
      this.#waiters = this.#waiters.filter((waiter) => {
        if (!waiter.predicate(frame)) return true;
        waiter.resolve(frame);
        return false;
      });
    });
    socket.on('error', () => {});
    this.closed = new Promise((resolve) => {
      socket.on('close', (code, reason) => resolve({ code, reason: String(reason) }));
    });
  }

  static async open(
    url: string,
    options: { protocols?: string[]; clientOptions?: ClientOptions; token?: string } = {},
  ): Promise<TestClient> {
    const protocols = options.protocols ?? [
      WEB_SOCKET_SUBPROTOCOL,
      `${WEB_SOCKET_TOKEN_PROTOCOL_PREFIX}${options.token ?? TEST_TOKEN}`,
    ];
    const socket = new WebSocket(`${url}/ws`, protocols, options.clientOptions);
    const client = new TestClient(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('unexpected-response', (_request, response) => {
        reject(new UpgradeRefused(response.statusCode ?? 0));
        response.resume();
      });
      socket.once('error', reject);
    });
    return client;
  }

  /** Opens, says hello and waits for `welcome`. */
  static async greeted(
    url: string,
    clientId: string,
    hello: Record<string, unknown> = {},
  ): Promise<TestClient> {
    const client = await TestClient.open(url);
    client.send({ type: 'hello', v: 1, clientId, ...hello });
    await client.next((frame) => frame.type === 'welcome');
    return client;
  }

  /** Sends a text frame: objects as JSON, strings and raw bytes (possibly invalid UTF-8) as they are. */
  send(frame: unknown): void {
    if (Buffer.isBuffer(frame)) this.socket.send(frame, { binary: false });
    else this.socket.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  /**
   * Resolves with the first frame after the previously matched one (in arrival order) that
   * satisfies `predicate`; earlier unmatched frames are skipped.
   */
  next<T extends ServerFrame = ServerFrame>(
    predicate: (frame: ServerFrame) => boolean,
    timeoutMs = 5000,
  ): Promise<T> {
    for (let index = this.#cursor; index < this.frames.length; index += 1) {
      const frame = this.frames[index]!;
      if (predicate(frame)) {
        this.#cursor = index + 1;
        return Promise.resolve(frame as T);
      }
    }
    this.#cursor = this.frames.length;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no matching frame within ${timeoutMs} ms`)),
        timeoutMs,
      );
      this.#waiters.push({
        predicate,
        resolve: (frame) => {
          clearTimeout(timer);
          this.#cursor = this.frames.length;
          resolve(frame as T);
        },
      });
    });
  }

  eventFrames(conversationId?: string): Array<Extract<ServerFrame, { type: 'event' }>> {
    return this.frames.filter(
      (frame): frame is Extract<ServerFrame, { type: 'event' }> =>
        frame.type === 'event' && (conversationId === undefined || frame.conversationId === conversationId),
    );
  }

  async close(): Promise<void> {
    if (this.socket.readyState === WebSocket.CLOSED) return;
    this.socket.terminate();
    await this.closed;
  }
}

export class UpgradeRefused extends Error {
  readonly statusCode: number;

  constructor(statusCode: number) {
    super(`upgrade refused with HTTP ${statusCode}`);
    this.name = 'UpgradeRefused';
    this.statusCode = statusCode;
  }
}

export function replyEvents(replyId: string, parts: string[]): ReplyEvent[] {
  return [
    { type: 'reply.start', replyId },
    ...parts.map((text): ReplyEvent => ({ type: 'reply.delta', replyId, text })),
    { type: 'reply.end', replyId, text: parts.join('') },
  ];
}

export function delay(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}
