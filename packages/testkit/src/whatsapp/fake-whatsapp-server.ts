import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';

/** What the server does with a new connection. */
export type FakeWhatsAppServerBehavior =
  /** Accept and stay silent: the client waits for a server hello that never comes. */
  | 'hold'
  /** Accept, read the client's hello, then drop the TCP connection. */
  | 'drop-after-hello';

export interface FakeWhatsAppConnection {
  /** When the connection arrived (ms since epoch). */
  openedAt: number;
  /** The first binary frame the client sent (Baileys' noise intro starts with `WA`). */
  firstFrame: Buffer | undefined;
  /** Every binary frame the client sent, in order (the first included). */
  readonly frames: Buffer[];
  readonly closed: boolean;
}

export interface FakeWhatsAppServer {
  /** `ws://127.0.0.1:PORT/ws/chat`, for `makeWASocket({ waWebSocketUrl })`. */
  readonly url: string;
  readonly connections: readonly FakeWhatsAppConnection[];
  setBehavior(behavior: FakeWhatsAppServerBehavior): void;
  /** Drops every open connection without a close handshake, like a lost network. */
  dropAll(): void;
  /** Resolves once at least `count` connections have arrived in total. */
  waitForConnections(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * A loopback WebSocket endpoint for the real `makeWASocket`. It cannot complete WhatsApp's
 * noise handshake (the server certificate is signed by WhatsApp), so it exercises transport
 * behaviour: connects, drops, silence, and therefore the client's reconnect policy.
 */
export async function startFakeWhatsAppServer(
  options: { behavior?: FakeWhatsAppServerBehavior } = {},
): Promise<FakeWhatsAppServer> {
  let behavior = options.behavior ?? 'hold';
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0, path: '/ws/chat' });
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const connections: FakeWhatsAppConnection[] = [];
  const sockets = new Set<WebSocket>();
  const waiters: { count: number; resolve: () => void }[] = [];

  server.on('connection', (socket) => {
    sockets.add(socket);
    let closed = false;
    const connection: FakeWhatsAppConnection = {
      openedAt: Date.now(),
      firstFrame: undefined,
      frames: [],
      get closed() {
        return closed;
      },
    };
    connections.push(connection);
    const behaviorNow = behavior;
    socket.on('message', (data: Buffer) => {
      connection.firstFrame ??= Buffer.from(data);
      connection.frames.push(Buffer.from(data));
      if (behaviorNow === 'drop-after-hello') socket.terminate();
    });
    socket.on('close', () => {
      closed = true;
      sockets.delete(socket);
    });
    socket.on('error', () => {});
    for (const waiter of [...waiters]) {
      if (connections.length >= waiter.count) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  });

  const { port } = server.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}/ws/chat`,
    connections,
    setBehavior(next) {
      behavior = next;
    },
    dropAll() {
      for (const socket of sockets) socket.terminate();
    },
    waitForConnections(count, timeoutMs = 10_000) {
      if (connections.length >= count) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          reject(new Error(`expected ${count} connections, got ${connections.length}`));
        }, timeoutMs);
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    },
    async close() {
      for (const socket of sockets) socket.terminate();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
