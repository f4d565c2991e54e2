import { Boom } from '@hapi/boom';
import { backoffDelay } from '@nexus/channel-kit';
import type { Logger } from '@nexus/protocol';
import { type BaileysEventMap, type ConnectionState, DisconnectReason } from '@whiskeysockets/baileys';
import type { WhatsAppLinkState } from './link-state.ts';
import { disconnectStatusCode, reconnectDecision } from './reconnect-decision.ts';
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
  const { logger, now } = options;
  let current: { socket: WhatsAppSocket; detach: () => void } | undefined;
  let open = false;
  let stopped = true;
  let attempt = 0;
  let immediateRestarts = 0;
  let openedAt: number | undefined;
  let reconnectTimer: NodeJS.Timeout | undefined;
  let pendingClear: Promise<void> | undefined;
  let linkState: WhatsAppLinkState = { status: 'idle', updatedAt: new Date(now()).toISOString() };
  const openWaiters = new Set<(socket: WhatsAppSocket | undefined) => void>();

  function setState(next: Omit<WhatsAppLinkState, 'updatedAt'>): void {
    linkState = { ...next, updatedAt: new Date(now()).toISOString() };
    options.onLinkState(linkState);
  }

  function settleWaiters(socket: WhatsAppSocket | undefined): void {
    for (const resolve of openWaiters) resolve(socket);
    openWaiters.clear();
  }

  function connect(): void {
    reconnectTimer = undefined;
    if (stopped) return;
    setState({
      status: 'connecting',
      ...(linkState.lastDisconnect ? { lastDisconnect: linkState.lastDisconnect } : {}),
    });
    let socket: WhatsAppSocket;
    try {
      socket = options.socketFactory(options.socketConfig());
    } catch (error) {
      logger.error({ err: error }, 'whatsapp: could not create a socket');
      scheduleReconnect(undefined, false, error instanceof Error ? error.message : String(error));
      return;
    }
    attach(socket);
  }

  function attach(socket: WhatsAppSocket): void {
    let pairingRequested = false;
    const watchdog = startSocketWatchdog({
      silenceMs: options.watchdogMs,
      now,
      onSilent: (silentMs) => {
        logger.warn({ silentMs }, 'whatsapp: no transport activity, replacing the socket');
        const error = new Boom(`No transport activity for ${silentMs} ms`, {
          statusCode: DisconnectReason.connectionLost,
        });
        retire(socket, error);
        void Promise.resolve(socket.end(error)).catch(() => {});
      },
    });
    const touch = (): void => watchdog.touch();
    const onConnection = (update: Partial<ConnectionState>): void => {
      touch();
      handleConnectionUpdate(socket, update, () => {
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
        logger.error({ err: error }, 'whatsapp: could not save credentials');
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
    current = {
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

  function handleConnectionUpdate(
    socket: WhatsAppSocket,
    update: Partial<ConnectionState>,
    firstPairingRequest: () => boolean,
  ): void {
    if (current?.socket !== socket) return;
    if (update.qr) {
      const phone = options.pairingPhoneNumber?.replace(/\D/g, '');
      if (phone && !socket.authState.creds.registered) {
        if (firstPairingRequest()) {
          socket.requestPairingCode(phone).then(
            (code) => {
              if (current?.socket !== socket) return;
              setState({ status: 'awaiting_link', pairingCode: code });
              options.onPairingCode(code);
            },
            (error: unknown) => logger.error({ err: error }, 'whatsapp: pairing code request failed'),
          );
        }
      } else {
        setState({ status: 'awaiting_link', qr: update.qr });
        options.onQr(update.qr);
      }
    }
    if (update.connection === 'open') {
      open = true;
      openedAt = now();
      immediateRestarts = 0;
      const identity = botIdentityOf(socket.user);
      setState({
        status: 'open',
        account: {
          ...(identity.phoneJid ? { phoneJid: identity.phoneJid } : {}),
          ...(identity.lidJid ? { lidJid: identity.lidJid } : {}),
        },
      });
      logger.info({ account: identity }, 'whatsapp: link open');
      options.onOpen();
      settleWaiters(socket);
    }
    if (update.connection === 'close') retire(socket, update.lastDisconnect?.error);
  }

  /** Drops this socket (listeners first, so its own close cannot re-enter) and applies the policy. */
  function retire(socket: WhatsAppSocket, error: Error | undefined): void {
    if (current?.socket !== socket) return;
    current.detach();
    current = undefined;
    open = false;
    if (openedAt !== undefined && now() - openedAt >= options.stableOpenMs) attempt = 0;
    openedAt = undefined;
    if (stopped) return;
    const statusCode = disconnectStatusCode(error);
    const decision = reconnectDecision(statusCode);
    const lastDisconnect = {
      ...(statusCode === undefined ? {} : { statusCode }),
      at: new Date(now()).toISOString(),
    };
    if (decision.action === 'stop') {
      stopped = true;
      settleWaiters(undefined);
      logger.error(
        { statusCode, reason: decision.reason },
        decision.relink
          ? 'whatsapp: link ended by WhatsApp; link the device again'
          : 'whatsapp: another client replaced this session; not reconnecting',
      );
      setState({
        status: decision.relink ? 'needs_relink' : 'replaced',
        lastDisconnect,
        detail: decision.reason,
      });
      // The server forgot this device: the stored credentials can never log in again.
      if (decision.reason === 'logged_out') {
        pendingClear = options.auth.clear().catch((clearError: unknown) => {
          logger.error({ err: clearError }, 'whatsapp: could not clear the dead credentials');
        });
      }
      return;
    }
    logger.warn({ statusCode, message: error?.message }, 'whatsapp: connection closed');
    scheduleReconnect(statusCode, decision.delay === 'immediate', error?.message);
  }

  function scheduleReconnect(statusCode: number | undefined, immediate: boolean, detail?: string): void {
    const useImmediate = immediate && immediateRestarts < MAX_IMMEDIATE_RESTARTS;
    let delay = 0;
    if (useImmediate) {
      immediateRestarts += 1;
    } else {
      delay = backoffDelay({ attempt, ...options.reconnect, random: options.random });
      attempt += 1;
    }
    setState({
      status: 'reconnecting',
      nextAttemptInMs: delay,
      ...(detail ? { detail } : {}),
      lastDisconnect: {
        ...(statusCode === undefined ? {} : { statusCode }),
        at: new Date(now()).toISOString(),
      },
    });
    reconnectTimer = setTimeout(connect, delay);
  }

  return {
    start() {
      if (!stopped) return;
      stopped = false;
      attempt = 0;
      immediateRestarts = 0;
      connect();
    },
    async stop() {
      stopped = true;
      if (reconnectTimer) clearTimeout(reconnectTimer);
      reconnectTimer = undefined;
      settleWaiters(undefined);
      const last = current;
      current = undefined;
      open = false;
      if (last) {
        last.detach();
        // Never `logout()` here: that would unlink the device.
        await Promise.resolve(last.socket.end(undefined)).catch(() => {});
      }
      await pendingClear;
      setState({ status: 'idle' });
    },
    openSocket() {
      return open ? current?.socket : undefined;
    },
    waitForOpen({ timeoutMs, abortSignal }) {
      const socket = open ? current?.socket : undefined;
      if (socket || stopped) return Promise.resolve(socket);
      return new Promise((resolve) => {
        const finish = (value: WhatsAppSocket | undefined): void => {
          clearTimeout(timer);
          abortSignal?.removeEventListener('abort', onAbort);
          openWaiters.delete(finish);
          resolve(value);
        };
        const onAbort = (): void => finish(undefined);
        const timer = setTimeout(() => finish(undefined), timeoutMs);
        abortSignal?.addEventListener('abort', onAbort, { once: true });
        openWaiters.add(finish);
      });
    },
    state: () => linkState,
  };
}
