import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type {
  CancelSink,
  ChannelAdapter,
  ChannelCapabilities,
  ChannelHealth,
  ChannelStartOptions,
  DeliverOptions,
  FetchAttachmentOptions,
  FetchedAttachment,
  IntentSink,
  Logger,
  ReplyEvent,
  ServerFrame,
} from '@nexus/protocol';
import { NexusError, WEB_SOCKET_CLOSE_CODES, WEB_SOCKET_SUBPROTOCOL } from '@nexus/protocol';
import { type WebSocket, WebSocketServer } from 'ws';
import { createUpgradeAuthorizer, type UpgradeAuthorizer } from './authorize-upgrade.ts';
import { webSocketCapabilities } from './capabilities.ts';
import { ClientConnection } from './client-connection.ts';
import { ClientFrameHandler } from './client-frame-handler.ts';
import { ConnectionRegistry } from './connection-registry.ts';
import { ReplayLog, type ReplyPart } from './replay-log.ts';
import { replyMediaFrames } from './reply-media-frames.ts';
import { parseUploadFileId, webIntentId } from './to-intent.ts';
import {
  type ResolvedWebSocketChannelOptions,
  resolveWebSocketChannelOptions,
  type WebSocketChannelOptions,
} from './web-socket-channel-options.ts';

export interface WebSocketChannel extends ChannelAdapter {
  /**
   * Offer an HTTP upgrade from the gateway's `node:http` server. Returns false when the path is
   * not this channel's, leaving the socket to the caller; otherwise the socket is handled
   * (accepted, or answered 401/403/503 and destroyed).
   */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  /**
   * Answer a plain (non-upgrade) HTTP request for this channel's path: 401 for a wrong or missing
   * token, 426 Upgrade Required otherwise. A page cannot see why a handshake failed, so the web
   * client asks this to tell "token rejected" from "server down". Returns false for other paths.
   */
  handleRequest(request: IncomingMessage, response: ServerResponse): boolean;
  /** Open sockets, including ones still waiting for `hello`. */
  connectionCount(): number;
  /**
   * Forgets the events kept for a resume of one of `clientId`'s conversations; false (nothing
   * forgotten) when another client owns it.
   */
  forgetConversation(conversationId: string, clientId: string): boolean;
  /**
   * Closes every socket of `clientId` (signed in as them, or having said so in `hello`) with 4401,
   * so a client whose access was taken away goes back to signing in. Returns how many.
   */
  closeClient(clientId: string): number;
  /** Closes the sockets opened with one sign-in session (sign out) with 4401. Returns how many. */
  closeSession(session: string): number;
  /**
   * Sends a frame to every open socket of `clientId` (each tab and device of that person), such as
   * a change to their conversation list; never to another client's. Returns how many.
   */
  sendToClient(clientId: string, frame: ServerFrame): number;
  /** Message frames get a retryable `shutting_down` error from now on; deliveries go on. */
  stopIntake(): Promise<void>;
}

type State = 'idle' | 'started' | 'stopping' | 'stopped';

const STATUS_TEXT: Record<number, string> = {
  401: 'Unauthorized',
  403: 'Forbidden',
  503: 'Service Unavailable',
};
/** Length of `bytes` bytes once base64-encoded. */
function base64Chars(bytes: number): number {
  return Math.ceil(bytes / 3) * 4;
}

/** What the replay log needs to know of an event: a reply's delta, or the end that supersedes them. */
function replyPartOf(event: ReplyEvent): ReplyPart | undefined {
  if (event.type === 'reply.delta') return { deltaOf: event.replyId };
  if (event.type === 'reply.end') return { endOf: event.replyId };
  return undefined;
}

/** Events handed to sockets between forced yields, so a fast producer cannot starve other clients. */
const EVENTS_PER_YIELD = 64;

function rejectUpgrade(socket: Duplex, status: number): void {
  const body = `${STATUS_TEXT[status] ?? 'Error'}\n`;
  socket.once('finish', () => socket.destroy());
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}\r\nConnection: close\r\n` +
      `Content-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

/**
 * The path of a request target. An origin-form target is appended to a fixed origin rather than
 * resolved against it: `new URL('//x', base)` reads `//x` as a host name (and throws on `//`).
 */
function pathnameOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    if (url.startsWith('/')) return new URL(`http://localhost${url}`).pathname;
    return /^https?:\/\//iu.test(url) ? new URL(url).pathname : undefined;
  } catch {
    return undefined;
  }
}

class WebSocketChannelAdapter implements WebSocketChannel {
  readonly name: string;
  readonly capabilities: ChannelCapabilities;
  readonly #options: ResolvedWebSocketChannelOptions;
  readonly #logger: Logger;
  readonly #authorizer: UpgradeAuthorizer;
  readonly #replayLog: ReplayLog;
  readonly #registry = new ConnectionRegistry();
  readonly #frames: ClientFrameHandler;
  #state: State = 'idle';
  #server: WebSocketServer | undefined;
  #sink: IntentSink | undefined;
  #cancel: CancelSink | undefined;
  /** Set by `stopIntake`: message frames are refused (retryable) while deliveries go on. */
  #intakeStopped = false;
  #heartbeat: NodeJS.Timeout | undefined;

  constructor(options: ResolvedWebSocketChannelOptions) {
    this.#options = options;
    this.name = options.channelName;
    this.capabilities = webSocketCapabilities({ uploads: options.uploads !== undefined });
    this.#logger = options.logger.child({ channel: options.channelName });
    this.#authorizer = createUpgradeAuthorizer({
      token: options.token,
      allowedOrigins: options.allowedOrigins,
    });
    // Seeded from the clock so numbers keep growing across restarts and clients never see a reused seq.
    this.#replayLog = new ReplayLog({
      replayLimit: options.replayLimit,
      maxConversations: options.maxConversations,
      maxBytes: options.replayMaxBytes,
      initialSeq: options.now() * 1000,
    });
    this.#frames = new ClientFrameHandler({
      options,
      replayLog: this.#replayLog,
      registry: this.#registry,
      sink: () => (this.#state === 'started' && !this.#intakeStopped ? this.#sink : undefined),
      cancel: () => (this.#state === 'started' ? this.#cancel : undefined),
    });
  }

  async start(options: ChannelStartOptions): Promise<void> {
    if (this.#state === 'started' || this.#state === 'stopping') {
      throw new NexusError({ code: 'internal', message: `channel ${this.name} is already ${this.#state}` });
    }
    this.#sink = options.sink;
    this.#cancel = options.cancel;
    this.#intakeStopped = false;
    this.#server = new WebSocketServer({
      noServer: true,
      clientTracking: false,
      perMessageDeflate: false,
      maxPayload: this.#options.maxPayloadBytes,
      skipUTF8Validation: true,
      handleProtocols: (protocols) =>
        protocols.has(WEB_SOCKET_SUBPROTOCOL) ? WEB_SOCKET_SUBPROTOCOL : false,
    });
    this.#heartbeat = setInterval(() => {
      for (const connection of this.#registry.all()) connection.heartbeat();
    }, this.#options.heartbeatMs);
    this.#heartbeat.unref();
    this.#state = 'started';
    options.abortSignal?.addEventListener('abort', () => void this.stop(), { once: true });
    this.#logger.info({ path: this.#options.path }, 'web-socket channel started');
  }

  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): boolean {
    if (pathnameOf(request.url) !== this.#options.path) return false;
    socket.on('error', (error) => this.#logger.debug({ err: error }, 'upgrade socket error'));
    const server = this.#server;
    if (this.#state !== 'started' || server === undefined) {
      rejectUpgrade(socket, 503);
      return true;
    }
    const verdict = this.#authorizer.authorize(request);
    if (!verdict.ok) {
      this.#logger.info({ status: verdict.status, reason: verdict.reason }, 'web-socket upgrade refused');
      rejectUpgrade(socket, verdict.status);
      return true;
    }
    const signedIn = {
      clientId: this.#options.clientIdOf?.(request),
      session: this.#options.sessionOf?.(request),
    };
    server.handleUpgrade(request, socket, head, (webSocket) => this.#accept(webSocket, socket, signedIn));
    return true;
  }

  handleRequest(request: IncomingMessage, response: ServerResponse): boolean {
    if (pathnameOf(request.url) !== this.#options.path) return false;
    const verdict = this.#authorizer.authorize(request);
    const status = verdict.ok ? 426 : verdict.status;
    response.writeHead(status, {
      'content-type': 'text/plain; charset=utf-8',
      'cache-control': 'no-store',
      ...(verdict.ok ? { upgrade: 'websocket' } : {}),
      ...(status === 401 ? { 'www-authenticate': 'Bearer' } : {}),
    });
    response.end(verdict.ok ? 'Upgrade Required\n' : `${STATUS_TEXT[status] ?? 'Error'}\n`);
    return true;
  }

  forgetConversation(conversationId: string, clientId: string): boolean {
    return this.#replayLog.forget(conversationId, clientId);
  }

  connectionCount(): number {
    return this.#registry.size;
  }

  closeClient(clientId: string): number {
    return this.#closeWhere(
      (connection) => connection.boundClientId === clientId || connection.clientId === clientId,
      'access revoked',
    );
  }

  closeSession(session: string): number {
    return this.#closeWhere((connection) => connection.session === session, 'signed out');
  }

  sendToClient(clientId: string, frame: ServerFrame): number {
    const connections = this.#registry.ofClient(clientId);
    for (const connection of connections) connection.sendFrame(frame);
    return connections.size;
  }

  #closeWhere(matches: (connection: ClientConnection) => boolean, reason: string): number {
    let closed = 0;
    for (const connection of [...this.#registry.all()]) {
      if (!matches(connection)) continue;
      connection.close(WEB_SOCKET_CLOSE_CODES.unauthorized, reason);
      closed += 1;
    }
    return closed;
  }

  async deliver(options: DeliverOptions): Promise<void> {
    const { conversation, events, abortSignal } = options;
    const conversationId = conversation.conversationId;
    // An answer is delivered under the intent of the person's message it answers; anything else
    // (a reminder, an outbound message) is not an answer the client may take for a version of one.
    const unprompted = conversation.intentId.startsWith(
      webIntentId(this.name, conversation.senderPlatformId, ''),
    )
      ? undefined
      : true;
    let sinceYield = 0;
    for await (const event of events) {
      if (abortSignal?.aborted) break;
      let live: string | undefined;
      const stored = this.#replayLog.append(
        conversationId,
        conversation.senderPlatformId,
        (seq) => {
          if (event.type === 'reply.start' && unprompted)
            return JSON.stringify({ type: 'event', conversationId, seq, event, unprompted });
          if (event.type !== 'reply.media')
            return JSON.stringify({ type: 'event', conversationId, seq, event });
          const frames = replyMediaFrames({
            conversationId,
            seq,
            event,
            replayMaxChars: base64Chars(this.#options.replayMediaMaxBytes),
            // Half the peer's buffer cap: a bigger frame would get the client disconnected (4413).
            liveMaxChars: Math.floor(this.#options.maxBufferedBytes / 2),
          });
          if (frames.omittedLive) {
            this.#logger.warn(
              { conversationId, name: event.media.name, sizeBytes: event.media.sizeBytes },
              'web-socket: reply file too large to send; the client is told',
            );
          }
          live = frames.live;
          return frames.replay;
        },
        replyPartOf(event),
      );
      const owner = this.#replayLog.owner(conversationId) ?? conversation.senderPlatformId;
      for (const connection of this.#registry.ofClient(owner)) {
        connection.outbound.sendEvent(conversationId, stored.seq, event, live ?? stored.frame);
      }
      sinceYield += 1;
      if (sinceYield >= EVENTS_PER_YIELD) {
        sinceYield = 0;
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    }
  }

  /**
   * Reads a web upload named by an intent this channel produced; the uploader's client id is part
   * of `platformFileId` and checked again by the store, so one client never reads another's file.
   */
  async fetchAttachment(options: FetchAttachmentOptions): Promise<FetchedAttachment> {
    const uploads = this.#options.uploads;
    const parsed = parseUploadFileId(options.attachment.platformFileId ?? '');
    if (uploads === undefined || parsed === undefined) {
      throw new NexusError({ code: 'attachment_unavailable', message: 'not a web upload' });
    }
    return uploads.read({
      ...parsed,
      maxBytes: options.maxBytes,
      ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
    });
  }

  /**
   * Takes no more messages: a message frame now gets a retryable `shutting_down` error, so the
   * client keeps it and sends it again after reconnecting. Connections stay up for the replies
   * core is still delivering.
   */
  async stopIntake(): Promise<void> {
    if (this.#state !== 'started' || this.#intakeStopped) return;
    this.#intakeStopped = true;
    this.#logger.info({}, 'web-socket channel takes no more messages');
  }

  async stop(options?: { abortSignal?: AbortSignal }): Promise<void> {
    if (this.#state !== 'started') return;
    this.#state = 'stopping';
    if (this.#heartbeat !== undefined) clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
    const shutdown = JSON.stringify({ type: 'shutdown', retryAfterMs: this.#options.shutdownRetryAfterMs });
    for (const connection of this.#registry.all()) {
      connection.outbound.send(shutdown);
      connection.close(1001, 'server shutting down');
    }
    await this.#registry.drained(this.#options.closeGraceMs + 500, options?.abortSignal);
    for (const connection of this.#registry.all()) connection.terminate();
    this.#server?.close();
    this.#server = undefined;
    this.#sink = undefined;
    this.#cancel = undefined;
    this.#state = 'stopped';
    this.#logger.info({}, 'web-socket channel stopped');
  }

  health(): ChannelHealth {
    if (this.#state === 'started' && this.#intakeStopped) return { status: 'down', detail: 'stopping' };
    if (this.#state === 'started') return { status: 'up', detail: `${this.#registry.size} connections` };
    if (this.#state === 'stopping') return { status: 'down', detail: 'stopping' };
    return { status: 'stopped', detail: this.#state === 'idle' ? 'not started' : 'stopped' };
  }

  #accept(
    webSocket: WebSocket,
    transport: Duplex,
    signedIn: { clientId: string | undefined; session: string | undefined },
  ): void {
    const connection = new ClientConnection({
      id: this.#options.generateId(),
      socket: webSocket,
      transport,
      ...(signedIn.clientId === undefined ? {} : { boundClientId: signedIn.clientId }),
      ...(signedIn.session === undefined ? {} : { session: signedIn.session }),
      logger: this.#logger,
      now: this.#options.now,
      helloTimeoutMs: this.#options.helloTimeoutMs,
      maxFramesPerSecond: this.#options.maxFramesPerSecond,
      messagesPerMinute: this.#options.messagesPerMinute,
      coalesceAboveBytes: this.#options.coalesceAboveBytes,
      maxBufferedBytes: this.#options.maxBufferedBytes,
      closeGraceMs: this.#options.closeGraceMs,
      onFrame: (client, frame) => this.#frames.handle(client, frame),
      onClose: (client) => this.#registry.remove(client),
    });
    this.#registry.add(connection);
    if (this.#state !== 'started') connection.close(1001, 'server shutting down');
  }
}

/** The web chat's server side: token-authenticated web sockets with resume, limits and backpressure. */
export function createWebSocketChannel(options: WebSocketChannelOptions): WebSocketChannel {
  return new WebSocketChannelAdapter(resolveWebSocketChannelOptions(options));
}
