import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ClientFrame, ServerFrame } from '@nexus/protocol';
import {
  WEB_SOCKET_CLOSE_CODES,
  WEB_SOCKET_SUBPROTOCOL,
  WEB_SOCKET_TOKEN_PROTOCOL_PREFIX,
} from '@nexus/protocol/web-socket-constants';
import { type WebSocket, WebSocketServer } from 'ws';

type Welcome = Extract<ServerFrame, { type: 'welcome' }>;

export interface StandInGatewayOptions {
  token: string;
  /** Fields merged into every welcome frame. */
  welcome?: Partial<Welcome>;
  /** Answer `ping` frames with `pong`. Default true. */
  answerPings?: boolean;
  /**
   * How a wrong token is refused: `http-401` at the upgrade, as the real channel does (a browser
   * sees only a failed handshake), or `close-4401` after accepting it. Default `http-401`.
   */
  rejectTokenWith?: 'http-401' | 'close-4401';
}

/** One client connection as the stand-in sees it. */
export interface StandInConnection {
  socket: WebSocket;
  protocols: string[];
  /** Every frame received so far, in order. */
  frames: ClientFrame[];
  /** The next frame not yet taken by a previous call (pings excluded). */
  nextFrame(): Promise<ClientFrame>;
  send(frame: ServerFrame): void;
}

export interface StandInGateway {
  url: string;
  connections: StandInConnection[];
  /** Handshakes answered with HTTP 401. */
  readonly rejectedHandshakes: number;
  /** The next connection not yet taken by a previous call. */
  nextConnection(): Promise<StandInConnection>;
  close(): Promise<void>;
}

/**
 * A real `ws` server speaking the gateway side of the web-socket protocol just far enough for
 * client tests: the sub-protocol token check, `GET /ws` answering 401 for a wrong bearer token
 * (the check a page makes after a failed handshake), welcome after hello, pong after ping.
 * Everything else (accepted, events, shutdown) the test sends itself.
 */
export async function startStandInGateway(options: StandInGatewayOptions): Promise<StandInGateway> {
  const tokenProtocol = WEB_SOCKET_TOKEN_PROTOCOL_PREFIX + options.token;
  let rejectedHandshakes = 0;
  const http = createServer((request, response) => {
    const authorized = request.headers.authorization === `Bearer ${options.token}`;
    response.writeHead(authorized ? 426 : 401, { 'content-type': 'text/plain' }).end();
  });
  const server = new WebSocketServer({
    noServer: true,
    handleProtocols: (protocols) => (protocols.has(WEB_SOCKET_SUBPROTOCOL) ? WEB_SOCKET_SUBPROTOCOL : false),
  });
  http.on('upgrade', (request, socket, head) => {
    socket.on('error', () => {});
    const protocols = String(request.headers['sec-websocket-protocol'] ?? '').split(',');
    if (
      options.rejectTokenWith !== 'close-4401' &&
      !protocols.some((entry) => entry.trim() === tokenProtocol)
    ) {
      rejectedHandshakes += 1;
      socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    server.handleUpgrade(request, socket, head, (webSocket) => server.emit('connection', webSocket, request));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const connections: StandInConnection[] = [];
  const pendingConnections = queue<StandInConnection>();

  server.on('connection', (socket, request) => {
    const protocols = (request.headers['sec-websocket-protocol'] ?? '')
      .split(',')
      .map((entry) => entry.trim());
    const frames: ClientFrame[] = [];
    const pendingFrames = queue<ClientFrame>();
    const connection: StandInConnection = {
      socket,
      protocols,
      frames,
      nextFrame: pendingFrames.take,
      send: (frame) => socket.send(JSON.stringify(frame)),
    };
    connections.push(connection);
    pendingConnections.put(connection);
    socket.on('error', () => {});
    if (!protocols.includes(tokenProtocol)) {
      socket.close(WEB_SOCKET_CLOSE_CODES.unauthorized, 'unauthorized');
      return;
    }
    socket.on('message', (data) => {
      const frame = JSON.parse(String(data)) as ClientFrame;
      frames.push(frame);
      if (frame.type === 'ping') {
        if (options.answerPings !== false) connection.send({ type: 'pong' });
        return;
      }
      if (frame.type === 'hello') {
        connection.send({
          type: 'welcome',
          v: 1,
          connectionId: `connection-${connections.length}`,
          heartbeatMs: 30_000,
          limits: { maxFrameBytes: 65_536, maxTextChars: 8_000, messagesPerMinute: 60 },
          ...options.welcome,
        });
      }
      pendingFrames.put(frame);
    });
  });

  const { port } = http.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}/ws`,
    connections,
    get rejectedHandshakes() {
      return rejectedHandshakes;
    },
    nextConnection: pendingConnections.take,
    close: async () => {
      for (const client of server.clients) client.terminate();
      server.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

function queue<T>(): { put(value: T): void; take(): Promise<T> } {
  const values: T[] = [];
  const waiters: ((value: T) => void)[] = [];
  return {
    put(value) {
      const waiter = waiters.shift();
      if (waiter) waiter(value);
      else values.push(value);
    },
    take() {
      const value = values.shift();
      if (value !== undefined) return Promise.resolve(value);
      return new Promise((resolve) => waiters.push(resolve));
    },
  };
}
