import { Boom } from '@hapi/boom';
import { backoffDelay } from '@nexus/channel-kit';
import type { Logger } from '@nexus/protocol';
import { type BaileysEventMap, type ConnectionState, DisconnectReason } from '@whiskeysockets/baileys';
import type { WhatsAppLinkState } from './link-state.ts';
import { disconnectStatusCode, type ReconnectDecision, reconnectDecision } from './reconnect-decision.ts';
import { startSocketWatchdog } from './socket-watchdog.ts';
import type { SqliteAuthState } from './sqlite-auth-state.ts';
import { botIdentityOf } from './to-intent.ts';
import type { WhatsAppSocket, WhatsAppSocketConfig, WhatsAppSocketFactory } from './whatsapp-socket.ts';

export interface ConnectionSupervisorOptions {
  socketFactory: WhatsAppSocketFactory;
  /** Builds the config of each new socket (auth, getMessage, URL…). */
  socketConfig: () => WhatsAppSocketConfig;
  auth: SqliteAuthState;
  logger: Logger;
  reconnect: { initialMs: number; maxMs: number };
  /** An open link must stay up this long before the backoff attempt counter resets. */
  stableOpenMs: number;
  watchdogMs: number;
  now: () => number;
  random: () => number;
  pairingPhoneNumber?: string;
  onQr: (qr: string) => void;
  onPairingCode: (code: string) => void;
  onLinkState: (state: WhatsAppLinkState) => void;
  onOpen: () => void;
  onMessages: (upsert: BaileysEventMap['messages.upsert'], socket: WhatsAppSocket) => void;
}

export interface ConnectionSupervisor {
  start(): void;
  stop(): Promise<void>;
  /** The socket if the link is open, else undefined. */
  openSocket(): WhatsAppSocket | undefined;
  /** Resolves with the open socket, or undefined after `timeoutMs` or when the channel gave up. */
  waitForOpen(options: { timeoutMs: number; abortSignal?: AbortSignal }): Promise<WhatsAppSocket | undefined>;
  state(): WhatsAppLinkState;
}

/** Immediate restarts allowed in a row before even `restartRequired` waits for backoff. */
const MAX_IMMEDIATE_RESTARTS = 3;

/**
 * Owns the socket lifecycle: one socket at a time, a new one per reconnect with its predecessor's
 * listeners removed first, the `reconnectDecision` policy, exponential backoff with jitter that
 * resets only after a stable open period, and a watchdog that replaces a socket whose transport
 * went silent ("linked but dead").
 */
export function createConnectionSupervisor(options: ConnectionSupervisorOptions): ConnectionSupervisor {
  return new WhatsAppConnectionSupervisor(options);
}

/** The current socket and how to take its listeners and watchdog off it. */
interface AttachedSocket {
  socket: WhatsAppSocket;
  detach: () => void;
}

/** See `createConnectionSupervisor`; the state of the link is the fields, each step a method. */
class WhatsAppConnectionSupervisor implements ConnectionSupervisor {
  readonly #options: ConnectionSupervisorOptions;
  #current: AttachedSocket | undefined;
  #open = false;
  #stopped = true;
  /** Backoff attempts since the last stable open. */
  #attempt = 0;
  #immediateRestarts = 0;
  #openedAt: number | undefined;
  #reconnectTimer: NodeJS.Timeout | undefined;
  /** Clearing dead credentials after a logout; `stop` waits for it. */
  #pendingClear: Promise<void> | undefined;
  #linkState: WhatsAppLinkState;
  readonly #openWaiters = new Set<(socket: WhatsAppSocket | undefined) => void>();

  constructor(options: ConnectionSupervisorOptions) {
    this.#options = options;
    this.#linkState = { status: 'idle', updatedAt: new Date(options.now()).toISOString() };
  }

  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#attempt = 0;
    this.#immediateRestarts = 0;
    this.#connect();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#reconnectTimer) clearTimeout(this.#reconnectTimer);
    this.#reconnectTimer = undefined;
    this.#settleWaiters(undefined);
    const last = this.#current;
    this.#current = undefined;
    this.#open = false;
    if (last) {
      last.detach();
      // Never `logout()` here: that would unlink the device.
      await Promise.resolve(last.socket.end(undefined)).catch(() => {});
    }
    await this.#pendingClear;
    this.#setState({ status: 'idle' });
  }

  openSocket(): WhatsAppSocket | undefined {
    return this.#open ? this.#current?.socket : undefined;
  }

  waitForOpen({ timeoutMs, abortSignal }: { timeoutMs: number; abortSignal?: AbortSignal }) {
    const socket = this.openSocket();
    if (socket || this.#stopped) return Promise.resolve(socket);
    return new Promise<WhatsAppSocket | undefined>((resolve) => {
      const finish = (value: WhatsAppSocket | undefined): void => {
        clearTimeout(timer);
        abortSignal?.removeEventListener('abort', onAbort);
        this.#openWaiters.delete(finish);
        resolve(value);
      };
      const onAbort = (): void => finish(undefined);
      const timer = setTimeout(() => finish(undefined), timeoutMs);
      abortSignal?.addEventListener('abort', onAbort, { once: true });
      this.#openWaiters.add(finish);
    });
  }

  state(): WhatsAppLinkState {
    return this.#linkState;
  }

  #setState(next: Omit<WhatsAppLinkState, 'updatedAt'>): void {
    this.#linkState = { ...next, updatedAt: new Date(this.#options.now()).toISOString() };
    this.#options.onLinkState(this.#linkState);
  }

  #settleWaiters(socket: WhatsAppSocket | undefined): void {
    for (const resolve of this.#openWaiters) resolve(socket);
    this.#openWaiters.clear();
  }

  #connect(): void {
    this.#reconnectTimer = undefined;
    if (this.#stopped) return;
    const { lastDisconnect } = this.#linkState;
    this.#setState({ status: 'connecting', ...(lastDisconnect ? { lastDisconnect } : {}) });
    let socket: WhatsAppSocket;
    try {
      socket = this.#options.socketFactory(this.#options.socketConfig());
    } catch (error) {
      this.#options.logger.error({ err: error }, 'whatsapp: could not create a socket');
      this.#scheduleReconnect(undefined, false, error instanceof Error ? error.message : String(error));
      return;
    }
    this.#current = this.#attach(socket);
  }

  /** Listens to the socket's events and transport, each of which also feeds the watchdog. */
  #attach(socket: WhatsAppSocket): AttachedSocket {
    const options = this.#options;
    let pairingRequested = false;
    const watchdog = startSocketWatchdog({
      silenceMs: options.watchdogMs,
      now: options.now,
      onSilent: (silentMs) => {
        options.logger.warn({ silentMs }, 'whatsapp: no transport activity, replacing the socket');
        const error = new Boom(`No transport activity for ${silentMs} ms`, {
          statusCode: DisconnectReason.connectionLost,
        });
        this.#retire(socket, error);
        void Promise.resolve(socket.end(error)).catch(() => {});
      },
    });
    const touch = (): void => watchdog.touch();
    const onConnection = (update: Partial<ConnectionState>): void => {
      touch();
      this.#handleConnectionUpdate(socket, update, () => {
        if (pairingRequested) return false;
        pairingRequested = true;
        return true;
      });
    };
    const onCreds = (): void => {
      touch();
      try {
        options.auth.saveCreds();
      } catch (error) {
        // Never throw into Baileys' emitter; the next creds.update writes the whole object again.
        options.logger.error({ err: error }, 'whatsapp: could not save credentials');
      }
    };
    const onUpsert = (upsert: BaileysEventMap['messages.upsert']): void => {
      touch();
      options.onMessages(upsert, socket);
    };
    socket.ev.on('connection.update', onConnection);
    socket.ev.on('creds.update', onCreds);
    socket.ev.on('messages.upsert', onUpsert);
    const transportEvents = ['message', 'ping', 'pong', 'open'];
    for (const event of transportEvents) socket.ws?.on(event, touch);
    return {
      socket,
      detach() {
        watchdog.stop();
        socket.ev.off('connection.update', onConnection);
        socket.ev.off('creds.update', onCreds);
        socket.ev.off('messages.upsert', onUpsert);
        for (const event of transportEvents) socket.ws?.off(event, touch);
      },
    };
  }

  #handleConnectionUpdate(
    socket: WhatsAppSocket,
    update: Partial<ConnectionState>,
    firstPairingRequest: () => boolean,
  ): void {
    if (this.#current?.socket !== socket) return;
    if (update.qr) this.#offerLink(socket, update.qr, firstPairingRequest);
    if (update.connection === 'open') this.#opened(socket);
    if (update.connection === 'close') this.#retire(socket, update.lastDisconnect?.error);
  }

  /** Not linked yet: a pairing code when a phone number is configured, else the QR payload. */
  #offerLink(socket: WhatsAppSocket, qr: string, firstPairingRequest: () => boolean): void {
    const phone = this.#options.pairingPhoneNumber?.replace(/\D/g, '');
    if (phone && !socket.authState.creds.registered) {
      if (!firstPairingRequest()) return;
      socket.requestPairingCode(phone).then(
        (code) => {
          if (this.#current?.socket !== socket) return;
          this.#setState({ status: 'awaiting_link', pairingCode: code });
          this.#options.onPairingCode(code);
        },
        (error: unknown) =>
          this.#options.logger.error({ err: error }, 'whatsapp: pairing code request failed'),
      );
      return;
    }
    this.#setState({ status: 'awaiting_link', qr });
    this.#options.onQr(qr);
  }

  #opened(socket: WhatsAppSocket): void {
    this.#open = true;
    this.#openedAt = this.#options.now();
    this.#immediateRestarts = 0;
    const identity = botIdentityOf(socket.user);
    this.#setState({
      status: 'open',
      account: {
        ...(identity.phoneJid ? { phoneJid: identity.phoneJid } : {}),
        ...(identity.lidJid ? { lidJid: identity.lidJid } : {}),
      },
    });
    this.#options.logger.info({ account: identity }, 'whatsapp: link open');
    this.#options.onOpen();
    this.#settleWaiters(socket);
  }

  /** Drops this socket (listeners first, so its own close cannot re-enter) and applies the policy. */
  #retire(socket: WhatsAppSocket, error: Error | undefined): void {
    if (this.#current?.socket !== socket) return;
    const { now, logger } = this.#options;
    this.#current.detach();
    this.#current = undefined;
    this.#open = false;
    if (this.#openedAt !== undefined && now() - this.#openedAt >= this.#options.stableOpenMs)
      this.#attempt = 0;
    this.#openedAt = undefined;
    if (this.#stopped) return;
    const statusCode = disconnectStatusCode(error);
    const decision = reconnectDecision(statusCode);
    if (decision.action === 'stop') {
      this.#giveUp(statusCode, decision);
      return;
    }
    logger.warn({ statusCode, message: error?.message }, 'whatsapp: connection closed');
    this.#scheduleReconnect(statusCode, decision.delay === 'immediate', error?.message);
  }

  /** WhatsApp ended the link for good (logged out, replaced): no reconnect, the state says why. */
  #giveUp(statusCode: number | undefined, decision: Extract<ReconnectDecision, { action: 'stop' }>): void {
    this.#stopped = true;
    this.#settleWaiters(undefined);
    this.#options.logger.error(
      { statusCode, reason: decision.reason },
      decision.relink
        ? 'whatsapp: link ended by WhatsApp; link the device again'
        : 'whatsapp: another client replaced this session; not reconnecting',
    );
    this.#setState({
      status: decision.relink ? 'needs_relink' : 'replaced',
      lastDisconnect: {
        ...(statusCode === undefined ? {} : { statusCode }),
        at: new Date(this.#options.now()).toISOString(),
      },
      detail: decision.reason,
    });
    // The server forgot this device: the stored credentials can never log in again.
    if (decision.reason === 'logged_out') {
      this.#pendingClear = this.#options.auth.clear().catch((clearError: unknown) => {
        this.#options.logger.error({ err: clearError }, 'whatsapp: could not clear the dead credentials');
      });
    }
  }

  #scheduleReconnect(statusCode: number | undefined, immediate: boolean, detail?: string): void {
    const useImmediate = immediate && this.#immediateRestarts < MAX_IMMEDIATE_RESTARTS;
    let delay = 0;
    if (useImmediate) {
      this.#immediateRestarts += 1;
    } else {
      delay = backoffDelay({
        attempt: this.#attempt,
        ...this.#options.reconnect,
        random: this.#options.random,
      });
      this.#attempt += 1;
    }
    this.#setState({
      status: 'reconnecting',
      nextAttemptInMs: delay,
      ...(detail ? { detail } : {}),
      lastDisconnect: {
        ...(statusCode === undefined ? {} : { statusCode }),
        at: new Date(this.#options.now()).toISOString(),
      },
    });
    this.#reconnectTimer = setTimeout(() => this.#connect(), delay);
  }
}
