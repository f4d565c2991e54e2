import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import { type PrivilegedIntent, refuseIntents } from './gateway-intents.ts';

export interface GatewayFrame {
  op: number;
  d: unknown;
  s?: number | null;
  t?: string | null;
}

export interface GatewayLogEntry {
  direction: 'received' | 'sent';
  op: number;
  t?: string;
  s?: number;
  at: number;
}

export interface GatewayStats {
  connections: number;
  identifies: number;
  resumes: number;
  heartbeats: number;
}

/** What the gateway answers a RESUME with: replay + RESUMED, or INVALID_SESSION (client re-identifies). */
export type ResumeOutcome = 'resumed' | 'invalid-session';

export interface FakeGatewayOptions {
  token: string;
  heartbeatIntervalMs: number;
  /** Dispatches that follow READY for a fresh session (READY itself first, then GUILD_CREATEs). */
  sessionStart(sessionId: string, resumeUrl: string): Array<{ t: string; d: unknown }>;
  resumeUrl(): string;
  /** Answers op 8 REQUEST_GUILD_MEMBERS. */
  guildMembersChunk(request: unknown): unknown;
  nextId(): string;
  /** Privileged intents the application has enabled; asking for another closes with 4014. */
  enabledPrivilegedIntents: Set<PrivilegedIntent>;
}

interface Session {
  id: string;
  seq: number;
  log: GatewayFrame[];
}

/**
 * The gateway half of the fake: HELLO, IDENTIFY → READY + GUILD_CREATE, heartbeat ACKs, RESUME
 * with replay of what the client missed, INVALID_SESSION, and controls to misbehave on purpose.
 */
export function createFakeGateway(options: FakeGatewayOptions) {
  const server = new WebSocketServer({ noServer: true });
  const previousSessions: Session[] = [];
  const log: GatewayLogEntry[] = [];
  const stats: GatewayStats = { connections: 0, identifies: 0, resumes: 0, heartbeats: 0 };
  let session: Session | undefined;
  let socket: WebSocket | undefined;
  let socketLive = false;
  // Only the connection that was deafened stays silent; a new connection works, as after a real outage.
  let deafSocket: WebSocket | undefined;
  let deafKeepsHeartbeats = false;
  let resumeOutcome: ResumeOutcome = 'resumed';

  function send(target: WebSocket, frame: GatewayFrame): void {
    if (target.readyState !== target.OPEN) return;
    if (target === deafSocket && !(deafKeepsHeartbeats && frame.op === 11)) return;
    log.push({
      direction: 'sent',
      op: frame.op,
      ...(frame.t ? { t: frame.t } : {}),
      ...(typeof frame.s === 'number' ? { s: frame.s } : {}),
      at: Date.now(),
    });
    target.send(JSON.stringify(frame));
  }

  function dispatch(t: string, d: unknown): number {
    if (!session) return -1;
    session.seq += 1;
    const frame: GatewayFrame = { op: 0, t, s: session.seq, d };
    session.log.push(frame);
    if (socket && socketLive) send(socket, frame);
    return session.seq;
  }

  function onFrame(target: WebSocket, frame: GatewayFrame): void {
    log.push({ direction: 'received', op: frame.op, at: Date.now() });
    if (frame.op === 1) {
      stats.heartbeats += 1;
      send(target, { op: 11, d: null });
    } else if (frame.op === 2) {
      stats.identifies += 1;
      const data = frame.d as { token?: string; intents?: unknown };
      if (data.token !== options.token) return void target.close(4004, 'Authentication failed.');
      const refused = refuseIntents(data.intents, options.enabledPrivilegedIntents);
      if (refused) return void target.close(refused.code, refused.reason);
      if (session) previousSessions.unshift(session);
      session = { id: options.nextId(), seq: 0, log: [] };
      socketLive = true;
      for (const event of options.sessionStart(session.id, options.resumeUrl())) dispatch(event.t, event.d);
    } else if (frame.op === 8) {
      dispatch('GUILD_MEMBERS_CHUNK', options.guildMembersChunk(frame.d));
    } else if (frame.op === 6) {
      stats.resumes += 1;
      const data = frame.d as { token?: string; session_id?: string; seq?: number };
      if (data.token !== options.token) return void target.close(4004, 'Authentication failed.');
      if (resumeOutcome === 'invalid-session' || !session || data.session_id !== session.id) {
        send(target, { op: 9, d: false });
        return;
      }
      socketLive = true;
      for (const missed of session.log.filter((entry) => (entry.s ?? 0) > (data.seq ?? 0))) {
        send(target, missed);
      }
      dispatch('RESUMED', {});
    }
  }

  server.on('connection', (connection) => {
    stats.connections += 1;
    if (socket && socket !== connection) socket.terminate();
    socket = connection;
    socketLive = false;
    connection.on('message', (data) => {
      let frame: GatewayFrame;
      try {
        frame = JSON.parse(data.toString()) as GatewayFrame;
      } catch {
        return void connection.close(4002, 'Error while decoding payload.');
      }
      onFrame(connection, frame);
    });
    connection.on('close', () => {
      if (socket === connection) {
        socket = undefined;
        socketLive = false;
      }
    });
    send(connection, { op: 10, d: { heartbeat_interval: options.heartbeatIntervalMs } });
  });

  return {
    log,
    stats,
    handleUpgrade(request: IncomingMessage, stream: Duplex, head: Buffer): void {
      server.handleUpgrade(request, stream, head, (connection) => server.emit('connection', connection));
    },
    dispatch,
    isLive: () => socket !== undefined && socketLive && socket !== deafSocket,
    sessionId: () => session?.id,
    replay(eventSeq: number): number {
      const current = session?.log.find((frame) => frame.s === eventSeq);
      if (current) {
        if (socket && socketLive) send(socket, current);
        return eventSeq;
      }
      for (const old of previousSessions) {
        const frame = old.log.find((entry) => entry.s === eventSeq);
        if (frame?.t) return dispatch(frame.t, frame.d);
      }
      throw new Error(`No dispatch with sequence ${eventSeq} to replay.`);
    },
    dropConnection(options: { code?: number } = {}): void {
      const target = socket;
      socket = undefined;
      socketLive = false;
      if (!target) return;
      if (options.code === undefined) target.terminate();
      else target.close(options.code, 'Fake gateway closed the connection.');
    },
    requestReconnect(): void {
      if (socket) send(socket, { op: 7, d: null });
    },
    setResumeOutcome(outcome: ResumeOutcome): void {
      resumeOutcome = outcome;
    },
    /**
     * The current connection stops sending anything but stays open. With `keepHeartbeats` it
     * still ACKs heartbeats (so discord.js sees nothing wrong) while events stop: the outage a
     * client cannot notice on its own.
     */
    deafen(deafOptions: { keepHeartbeats?: boolean } = {}): void {
      deafSocket = socket;
      deafKeepsHeartbeats = deafOptions.keepHeartbeats ?? false;
    },
    close(): Promise<void> {
      for (const client of server.clients) client.terminate();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

export type FakeGateway = ReturnType<typeof createFakeGateway>;
