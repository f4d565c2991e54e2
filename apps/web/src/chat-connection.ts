import type { ClientFrame, ServerFrame } from '@nexus/protocol';
import {
  WEB_SOCKET_CLOSE_CODES,
  WEB_SOCKET_PROTOCOL_VERSION,
  WEB_SOCKET_SUBPROTOCOL,
  WEB_SOCKET_TOKEN_PROTOCOL_PREFIX,
} from '@nexus/protocol/web-socket-constants';
import { type BackoffOptions, backoffDelay } from './backoff.ts';

/** connecting: first attempt; open: welcomed; reconnecting: waiting or retrying after a drop. */
export type ConnectionPhase = 'connecting' | 'open' | 'reconnecting' | 'unauthorized' | 'stopped';

export interface ConnectionStatus {
  phase: ConnectionPhase;
  /** Reconnect attempts since the last welcome. */
  attempt: number;
  /** Messages not yet accepted by the server; they are (re)sent after the next welcome. */
  queued: number;
}

export interface ResumePoint {
  conversationId: string;
  lastSeq: number;
}

/**
 * A new message (the `type` may be left out), an edit or delete of an earlier one, or a request
 * for another answer to one (regenerate) or for an earlier version of its answer (choose).
 */
export type OutgoingMessage =
  | (Omit<Extract<ClientFrame, { type: 'message' }>, 'type'> & { type?: 'message' })
  | Extract<ClientFrame, { type: 'edit' | 'delete' | 'regenerate' | 'choose' }>;

export interface ChatConnectionOptions {
  /** ws: or wss: URL of the gateway's `/ws` endpoint. */
  url: string;
  /** Sent as the `nexus.token.<token>` sub-protocol; unset in a signed-in browser (its cookie goes). */
  token?: string;
  clientId: string;
  /** Read at every hello, so a reconnect resumes from the last event the app has applied. */
  resumePoint: () => ResumePoint | undefined;
  /** Every server frame, plus a locally made `error` frame for a queued message too large to send. */
  onFrame: (frame: ServerFrame) => void;
  onStatus: (status: ConnectionStatus) => void;
  /**
   * Asked after a handshake fails before opening: true when the server positively rejects the
   * token. Browsers hide the HTTP status of a refused handshake, so a 401 at upgrade is otherwise
   * indistinguishable from a server that is down. (A close with 4401 needs no check.)
   */
  isTokenRejected?: () => Promise<boolean>;
  /** Defaults to the global WebSocket (browsers, Node ≥ 22). */
  createWebSocket?: ((url: string, protocols: string[]) => WebSocket) | undefined;
  backoff?: BackoffOptions | undefined;
  random?: (() => number) | undefined;
}

const OPEN = 1;

type Limits = Extract<ServerFrame, { type: 'welcome' }>['limits'];

/**
 * One logical connection to the gateway that survives drops: it reconnects with backoff, resumes
 * the conversation from the last seen seq, and keeps every message until the server accepts it,
 * re-sending under the same clientMessageId (the server de-duplicates) after each welcome.
 */
export class ChatConnection {
  readonly #options: ChatConnectionOptions;
  readonly #outbox = new Map<string, OutgoingMessage>();
  /** Stops pressed while not connected, by reply id: sent after the next welcome, then dropped. */
  readonly #cancels = new Map<string, Extract<ClientFrame, { type: 'cancel' }>>();
  #socket: WebSocket | undefined;
  #phase: ConnectionPhase = 'connecting';
  #attempt = 0;
  #welcomed = false;
  #limits: Limits | undefined;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  #heartbeatTimer: ReturnType<typeof setInterval> | undefined;
  #awaitingPong = false;
  #nextDelayMs: number | undefined;

  constructor(options: ChatConnectionOptions) {
    this.#options = options;
  }

  get status(): ConnectionStatus {
    return { phase: this.#phase, attempt: this.#attempt, queued: this.#outbox.size };
  }

  start(): void {
    if (this.#socket === undefined && this.#retryTimer === undefined && this.#phase === 'connecting') {
      this.#connect();
    }
  }

  /** Queues the message and sends it now if the connection is welcomed, else after the next welcome. */
  sendMessage(message: OutgoingMessage): void {
    this.#outbox.set(message.clientMessageId, message);
    if (this.#welcomed) this.#transmit(message);
    this.#emitStatus();
  }

  /**
   * Asks for the events of another conversation after `lastSeq` (the page switched to it). Before
   * the welcome nothing is sent: the next hello carries the resume point instead.
   */
  resume(point: { conversationId: string; lastSeq: number }): void {
    if (this.#welcomed) this.#send({ type: 'resume', ...point });
  }

  /**
   * Asks the gateway to stop a reply still being written (named by its id, or before its first
   * words by the message it answers), keeping the first `shownChars` characters (what the page
   * showed). Not connected: sent after the next welcome.
   */
  cancel(
    request: { conversationId: string; shownChars: number } & (
      | { replyId: string }
      | { targetClientMessageId: string }
    ),
  ): void {
    const frame = { type: 'cancel' as const, ...request };
    if (this.#welcomed && this.#socket?.readyState === OPEN) this.#send(frame);
    else this.#cancels.set('replyId' in request ? request.replyId : request.targetClientMessageId, frame);
  }

  /** Skips the backoff wait, e.g. when the browser reports it is back online. */
  reconnectNow(): void {
    if (this.#retryTimer === undefined) return;
    clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    this.#connect();
  }

  stop(): void {
    this.#clearTimers();
    this.#abandonSocket();
    this.#setPhase('stopped');
  }

  #connect(): void {
    this.#retryTimer = undefined;
    if (this.#phase === 'stopped' || this.#phase === 'unauthorized') return;
    const { url, token } = this.#options;
    const protocols =
      token === undefined
        ? [WEB_SOCKET_SUBPROTOCOL]
        : [WEB_SOCKET_SUBPROTOCOL, WEB_SOCKET_TOKEN_PROTOCOL_PREFIX + token];
    let socket: WebSocket;
    try {
      socket = this.#options.createWebSocket?.(url, protocols) ?? new WebSocket(url, protocols);
    } catch {
      // A token with characters a sub-protocol cannot carry makes the constructor throw: no
      // server would accept it, so treat it like a rejected token.
      this.#setPhase('unauthorized');
      return;
    }
    this.#socket = socket;
    let opened = false;
    socket.onopen = () => {
      opened = true;
      this.#sendHello();
    };
    socket.onmessage = (event) => this.#receive(event.data);
    socket.onclose = (event) => this.#closed(event.code, opened);
    socket.onerror = () => {};
  }

  #sendHello(): void {
    const resume = this.#options.resumePoint();
    const hello: ClientFrame = {
      type: 'hello',
      v: WEB_SOCKET_PROTOCOL_VERSION,
      clientId: this.#options.clientId,
    };
    if (resume !== undefined) hello.resume = resume;
    this.#send(hello);
  }

  #receive(data: unknown): void {
    this.#awaitingPong = false;
    if (typeof data !== 'string') return;
    let frame: ServerFrame;
    try {
      frame = JSON.parse(data) as ServerFrame;
    } catch {
      return;
    }
    if (typeof frame !== 'object' || frame === null || typeof frame.type !== 'string') return;
    switch (frame.type) {
      case 'welcome':
        this.#welcomed = true;
        this.#attempt = 0;
        this.#limits = frame.limits;
        this.#startHeartbeat(frame.heartbeatMs);
        this.#options.onFrame(frame);
        this.#setPhase('open');
        for (const message of [...this.#outbox.values()]) this.#transmit(message);
        for (const cancel of this.#cancels.values()) this.#send(cancel);
        this.#cancels.clear();
        return;
      case 'accepted':
        this.#outbox.delete(frame.clientMessageId);
        this.#options.onFrame(frame);
        this.#emitStatus();
        return;
      case 'error':
        // The server is stopping and did not take it: keep it queued; it goes again, under the same
        // id, after the next welcome (the `shutdown` frame that follows makes us reconnect).
        if (frame.clientMessageId !== undefined && frame.code === 'shutting_down' && frame.retryable) return;
        if (frame.clientMessageId !== undefined) this.#outbox.delete(frame.clientMessageId);
        this.#options.onFrame(frame);
        this.#emitStatus();
        return;
      case 'shutdown':
        this.#options.onFrame(frame);
        this.#nextDelayMs = frame.retryAfterMs;
        this.#abandonSocket();
        this.#scheduleReconnect();
        return;
      default:
        this.#options.onFrame(frame);
    }
  }

  #transmit(message: OutgoingMessage): void {
    const frame = { ...message, type: message.type ?? 'message' } as ClientFrame;
    const json = JSON.stringify(frame);
    const limits = this.#limits;
    const textLength = 'text' in message ? message.text.length : 0;
    if (limits && (textLength > limits.maxTextChars || utf8Length(json) > limits.maxFrameBytes)) {
      // Sending would get the connection closed (1009) and the outbox would resend it forever.
      this.#outbox.delete(message.clientMessageId);
      this.#options.onFrame({
        type: 'error',
        code: 'payload_too_large',
        message: `This message is too long (limit ${limits.maxTextChars} characters).`,
        retryable: false,
        clientMessageId: message.clientMessageId,
      });
      this.#emitStatus();
      return;
    }
    this.#socket?.send(json);
  }

  #send(frame: ClientFrame): void {
    if (this.#socket?.readyState === OPEN) this.#socket.send(JSON.stringify(frame));
  }

  #startHeartbeat(heartbeatMs: number): void {
    clearInterval(this.#heartbeatTimer);
    this.#awaitingPong = false;
    // A dead link (sleep, network switch) may never report close; any frame counts as life. Checking
    // "nothing since our last ping" rather than elapsed time stays correct when a background tab
    // throttles timers.
    this.#heartbeatTimer = setInterval(
      () => {
        if (this.#awaitingPong) {
          this.#abandonSocket();
          this.#scheduleReconnect();
          return;
        }
        this.#awaitingPong = true;
        this.#send({ type: 'ping' });
      },
      Math.max(heartbeatMs, 20),
    );
  }

  #closed(code: number, opened: boolean): void {
    this.#socket = undefined;
    this.#welcomed = false;
    clearInterval(this.#heartbeatTimer);
    if (this.#phase === 'stopped') return;
    if (code === WEB_SOCKET_CLOSE_CODES.unauthorized) {
      this.#clearTimers();
      this.#setPhase('unauthorized');
      return;
    }
    if (code === WEB_SOCKET_CLOSE_CODES.rateLimited) this.#attempt = Math.max(this.#attempt, 4);
    this.#scheduleReconnect();
    if (!opened) this.#checkToken();
  }

  #checkToken(): void {
    this.#options.isTokenRejected?.().then(
      (rejected) => {
        if (!rejected || this.#phase === 'open' || this.#phase === 'stopped') return;
        this.#clearTimers();
        this.#abandonSocket();
        this.#setPhase('unauthorized');
      },
      () => {},
    );
  }

  #scheduleReconnect(): void {
    clearInterval(this.#heartbeatTimer);
    if (this.#retryTimer !== undefined) return;
    const random = this.#options.random ?? Math.random;
    const delay =
      this.#nextDelayMs !== undefined
        ? this.#nextDelayMs + Math.round(random() * 500)
        : backoffDelay(this.#attempt, this.#options.backoff ?? {}, random);
    this.#nextDelayMs = undefined;
    this.#attempt += 1;
    this.#retryTimer = setTimeout(() => this.#connect(), delay);
    this.#setPhase('reconnecting');
  }

  #abandonSocket(): void {
    const socket = this.#socket;
    this.#socket = undefined;
    this.#welcomed = false;
    if (socket === undefined) return;
    socket.onopen = null;
    socket.onmessage = null;
    socket.onclose = null;
    socket.onerror = null;
    try {
      socket.close(1000);
    } catch {
      // Already closing.
    }
  }

  #clearTimers(): void {
    clearTimeout(this.#retryTimer);
    clearInterval(this.#heartbeatTimer);
    this.#retryTimer = undefined;
    this.#heartbeatTimer = undefined;
  }

  #setPhase(phase: ConnectionPhase): void {
    this.#phase = phase;
    this.#emitStatus();
  }

  #emitStatus(): void {
    this.#options.onStatus(this.status);
  }
}

function utf8Length(text: string): number {
  return new TextEncoder().encode(text).length;
}
