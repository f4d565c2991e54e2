import type { Duplex } from 'node:stream';
import type { ClientFrame, ErrorCode, Logger, ServerFrame } from '@nexus/protocol';
import { WEB_SOCKET_CLOSE_CODES } from '@nexus/protocol';
import type { RawData, WebSocket } from 'ws';
import { FrameFloodGuard } from './frame-flood-guard.ts';
import { MessageRateGuard, type MessageVerdict } from './message-rate-guard.ts';
import { OutboundQueue } from './outbound-queue.ts';
import { parseClientFrame } from './parse-client-frame.ts';

export interface ClientConnectionOptions {
  id: string;
  socket: WebSocket;
  /** The upgraded connection under `socket`: frames sent in one event-loop turn go out in one write. */
  transport?: Pick<Duplex, 'cork' | 'uncork'>;
  logger: Logger;
  now: () => number;
  helloTimeoutMs: number;
  maxFramesPerSecond: number;
  messagesPerMinute: number;
  coalesceAboveBytes: number;
  maxBufferedBytes: number;
  /** How long a closing peer gets to complete the close handshake before it is terminated. */
  closeGraceMs: number;
  /** The person the upgrade was signed in as; `hello.clientId` cannot name anyone else. */
  boundClientId?: string;
  /** The sign-in session the upgrade came with (see `WebSocketChannelOptions.sessionOf`). */
  session?: string;
  onFrame: (connection: ClientConnection, frame: ClientFrame) => void;
  onClose: (connection: ClientConnection) => void;
}

/**
 * One accepted socket: inbound limits and parsing, the hello deadline, liveness for the
 * heartbeat, and the outbound queue. What frames mean is decided by the channel (`onFrame`).
 */
export class ClientConnection {
  readonly id: string;
  readonly outbound: OutboundQueue;
  readonly logger: Logger;
  #clientId: string | undefined;
  #displayName: string | undefined;
  #alive = true;
  #closing = false;
  #closed = false;
  #helloTimer: NodeJS.Timeout | undefined;
  #graceTimer: NodeJS.Timeout | undefined;
  readonly #options: ClientConnectionOptions;
  readonly #socket: WebSocket;
  readonly #flood: FrameFloodGuard;
  readonly #messages: MessageRateGuard;

  constructor(options: ClientConnectionOptions) {
    this.#options = options;
    this.id = options.id;
    this.#socket = options.socket;
    this.logger = options.logger.child({ connectionId: options.id });
    this.#flood = new FrameFloodGuard({ maxFramesPerSecond: options.maxFramesPerSecond, now: options.now });
    this.#messages = new MessageRateGuard({ messagesPerMinute: options.messagesPerMinute, now: options.now });
    this.outbound = new OutboundQueue({
      socket: options.socket,
      ...(options.transport ? { transport: options.transport } : {}),
      coalesceAboveBytes: options.coalesceAboveBytes,
      maxBufferedBytes: options.maxBufferedBytes,
      onOverflow: () =>
        this.close(WEB_SOCKET_CLOSE_CODES.slowConsumer, 'slow consumer; reconnect and resume'),
    });
    this.#socket.on('message', (data, isBinary) => this.#onMessage(data, isBinary));
    this.#socket.on('pong', () => {
      this.#alive = true;
    });
    this.#socket.on('error', (error) => this.logger.debug({ err: error }, 'web-socket connection error'));
    this.#socket.on('close', (code) => this.#onClose(code));
    this.#helloTimer = setTimeout(() => {
      this.close(WEB_SOCKET_CLOSE_CODES.helloTimeout, 'hello expected');
    }, options.helloTimeoutMs);
    this.#helloTimer.unref();
  }

  get session(): string | undefined {
    return this.#options.session;
  }

  /** Who a signed-in upgrade stands for (see `ClientConnectionOptions.boundClientId`). */
  get boundClientId(): string | undefined {
    return this.#options.boundClientId;
  }

  /** Set by `hello`; undefined until the client said who it is. */
  get clientId(): string | undefined {
    return this.#clientId;
  }

  get displayName(): string | undefined {
    return this.#displayName;
  }

  get open(): boolean {
    return !this.#closing && !this.#closed;
  }

  greet(clientId: string, displayName: string | undefined): void {
    this.#clientId = clientId;
    this.#displayName = displayName;
    if (this.#helloTimer !== undefined) clearTimeout(this.#helloTimer);
    this.#helloTimer = undefined;
  }

  checkMessageRate(): MessageVerdict {
    return this.#messages.check();
  }

  sendFrame(frame: ServerFrame): void {
    this.outbound.send(JSON.stringify(frame));
  }

  sendError(code: ErrorCode, message: string, retryable: boolean, clientMessageId?: string): void {
    this.sendFrame({
      type: 'error',
      code,
      message,
      retryable,
      ...(clientMessageId ? { clientMessageId } : {}),
    });
  }

  /** Called on every heartbeat tick: a peer that did not answer the previous ping is gone. */
  heartbeat(): void {
    if (this.#closed) return;
    if (!this.#alive) {
      this.logger.info({}, 'web-socket peer missed a heartbeat; terminating');
      this.#socket.terminate();
      return;
    }
    this.#alive = false;
    this.#socket.ping();
  }

  close(code: number, reason: string): void {
    if (this.#closing || this.#closed) return;
    this.#closing = true;
    this.logger.debug({ code, reason }, 'closing web-socket connection');
    this.#socket.close(code, reason);
    this.#graceTimer = setTimeout(() => this.#socket.terminate(), this.#options.closeGraceMs);
    this.#graceTimer.unref();
  }

  terminate(): void {
    this.#socket.terminate();
  }

  #onMessage(data: RawData, isBinary: boolean): void {
    if (!this.open) return;
    const verdict = this.#flood.check();
    if (verdict === 'drop') return;
    if (verdict === 'close') {
      this.close(WEB_SOCKET_CLOSE_CODES.rateLimited, 'too many frames');
      return;
    }
    const parsed = parseClientFrame(data, isBinary);
    if (!parsed.ok) {
      this.sendError(parsed.code, parsed.message, false);
      return;
    }
    try {
      this.#options.onFrame(this, parsed.frame);
    } catch (error) {
      this.logger.error({ err: error }, 'web-socket frame handler failed');
      this.sendError('internal', 'the server could not handle this frame', true);
    }
  }

  #onClose(code: number): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#helloTimer !== undefined) clearTimeout(this.#helloTimer);
    if (this.#graceTimer !== undefined) clearTimeout(this.#graceTimer);
    this.outbound.dispose();
    this.logger.debug({ code }, 'web-socket connection closed');
    this.#options.onClose(this);
  }
}
