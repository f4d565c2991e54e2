import type { DatabaseSync } from 'node:sqlite';
import { KeyedSerialQueue } from '@nexus/channel-kit';
import {
  type ChannelAdapter,
  type ChannelHealth,
  type IntentSink,
  type Logger,
  NexusError,
  silentLogger,
} from '@nexus/protocol';
import { isJidNewsletter, isJidStatusBroadcast, makeWASocket } from '@whiskeysockets/baileys';
import { toBaileysLogger } from './baileys-logger.ts';
import { type ConnectionSupervisor, createConnectionSupervisor } from './connection-supervisor.ts';
import { fetchWhatsAppAttachment } from './fetch-attachment.ts';
import { createInboundHandler } from './inbound-handler.ts';
import { printQrToTerminal, type WhatsAppLinkState } from './link-state.ts';
import { openWhatsAppDatabase } from './open-whatsapp-database.ts';
import { createReplySender } from './reply-sender.ts';
import { createSqliteAuthState } from './sqlite-auth-state.ts';
import { createSqliteMessageStore, type MessageStore } from './sqlite-message-store.ts';
import type { WhatsAppSocketConfig, WhatsAppSocketFactory } from './whatsapp-socket.ts';

export interface WhatsAppChannelOptions {
  /** SQLite file holding credentials, signal keys, recent messages and the inbound cursor. */
  authPath: string;
  /** `Intent.channel`; default `whatsapp`. */
  name?: string;
  /** Default: Baileys' `makeWASocket`. Tests inject a fake socket here. */
  socketFactory?: WhatsAppSocketFactory;
  waWebSocketUrl?: string;
  /** Link by 8-character code on this phone number (digits with country code) instead of QR. */
  pairingPhoneNumber?: string;
  /** Default: prints the QR code to the terminal. */
  onQr?: (qr: string) => void;
  /** Default: logs the code at warn level so it shows in the console. */
  onPairingCode?: (code: string) => void;
  /** Every link state change, e.g. to push it to the web admin view. */
  onLinkState?: (state: WhatsAppLinkState) => void;
  /** Backoff between reconnects; default 2 s doubling to 60 s, full jitter. */
  reconnect?: { initialMs?: number; maxMs?: number };
  /** How long an open link must last before the backoff resets; default 60 s. */
  stableOpenMs?: number;
  /** Replace a socket with no transport activity for this long; default 120 s. */
  watchdogMs?: number;
  /** Minimum gap between two sends of this account; default 1000 ms. */
  sendPacingMs?: number;
  typingIntervalMs?: number;
  /** Characters per WhatsApp message; default 4000. */
  chunkLength?: number;
  /** How long a reply waits for a dropped link to return; default 30 s. */
  reconnectWaitMs?: number;
  /** Offline (`append`) messages older than this are history, not answered; default 24 h. */
  appendMaxAgeMs?: number;
  /**
   * Forward group messages that do not address the assistant (`mentionsAssistant: false`) for a
   * core access policy to decide. Default false: the adapter drops them itself.
   */
  forwardUnaddressed?: boolean;
  /** How long `start` waits for another process to release the auth file; default 2000 ms. */
  lockWaitMs?: number;
  /** Extra Baileys socket options (timeouts, browser); auth, logger and getMessage are ours. */
  socketConfig?: Partial<WhatsAppSocketConfig>;
  /** Pause before handing over again a message core did not take. Default 2000. */
  intakeRetryDelayMs?: number;
  logger?: Logger;
  now?: () => number;
  random?: () => number;
}

export interface WhatsAppChannel extends ChannelAdapter {
  /** Link status with the current QR payload or pairing code, for an admin view. */
  linkState(): WhatsAppLinkState;
  /** Resolves when every received message has been handed to the sink. */
  idle(): Promise<void>;
}

interface Running {
  database: DatabaseSync;
  supervisor: ConnectionSupervisor;
  deliver: ReturnType<typeof createReplySender>;
  inbound: ReturnType<typeof createInboundHandler>;
  messageStore: MessageStore;
  abortCleanup: () => void;
}

function openLockedDatabase(path: string, lockWaitMs: number): DatabaseSync {
  try {
    return openWhatsAppDatabase(path, { exclusive: true, timeoutMs: lockWaitMs });
  } catch (error) {
    const busy = error instanceof Error && /locked|busy/i.test(error.message);
    throw new NexusError({
      code: 'channel_unavailable',
      message: busy
        ? `WhatsApp auth file ${path} is in use by another process; run one gateway per account`
        : `Cannot open WhatsApp auth file ${path}: ${error instanceof Error ? error.message : String(error)}`,
      retryable: busy,
      cause: error,
    });
  }
}

/**
 * WhatsApp through Baileys (an unofficial client of WhatsApp Web: the account can be banned;
 * reply only to inbound messages). One instance per account and per auth file: two processes
 * on one auth file would replace each other's session.
 */
export function createWhatsAppChannel(options: WhatsAppChannelOptions): WhatsAppChannel {
  const name = options.name ?? 'whatsapp';
  const logger = (options.logger ?? silentLogger).child({ channel: name });
  const now = options.now ?? Date.now;
  let running: Running | undefined;
  let lastState: WhatsAppLinkState = { status: 'idle', updatedAt: new Date(now()).toISOString() };
  const deliveries = new Set<Promise<void>>();
  /** Wakes deliveries that arrived before `start` (core replays its inbox while channels start). */
  let started = Promise.withResolvers<void>();
  let everStopped = false;

  async function runningForDelivery(): Promise<Running> {
    if (!running && !everStopped) {
      const waitMs = options.reconnectWaitMs ?? 30_000;
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        started.promise,
        new Promise((resolve) => {
          timer = setTimeout(resolve, waitMs);
        }),
      ]);
      clearTimeout(timer);
    }
    if (!running) {
      throw new NexusError({
        code: 'channel_unavailable',
        message: 'WhatsApp channel is not running',
        retryable: true,
      });
    }
    return running;
  }

  function begin(sink: IntentSink): Running {
    const database = openLockedDatabase(options.authPath, options.lockWaitMs ?? 2_000);
    const baileysLogger = toBaileysLogger(logger);
    const auth = createSqliteAuthState({ database, logger: baileysLogger });
    const messageStore = createSqliteMessageStore({ database, now });
    const inbound = createInboundHandler({
      channel: name,
      database,
      messageStore,
      sink,
      queue: new KeyedSerialQueue(),
      logger,
      now,
      appendMaxAgeMs: options.appendMaxAgeMs ?? 24 * 60 * 60 * 1000,
      forwardUnaddressed: options.forwardUnaddressed ?? false,
      retryDelayMs: options.intakeRetryDelayMs ?? 2_000,
    });
    const supervisor = createConnectionSupervisor({
      socketFactory: options.socketFactory ?? makeWASocket,
      socketConfig: () => ({
        markOnlineOnConnect: false,
        syncFullHistory: false,
        ...options.socketConfig,
        ...(options.waWebSocketUrl ? { waWebSocketUrl: options.waWebSocketUrl } : {}),
        auth: auth.state,
        logger: baileysLogger,
        getMessage: messageStore.getMessage,
        shouldIgnoreJid: (jid: string) => isJidStatusBroadcast(jid) || isJidNewsletter(jid) === true,
      }),
      auth,
      logger,
      reconnect: {
        initialMs: options.reconnect?.initialMs ?? 2_000,
        maxMs: options.reconnect?.maxMs ?? 60_000,
      },
      stableOpenMs: options.stableOpenMs ?? 60_000,
      watchdogMs: options.watchdogMs ?? 120_000,
      now,
      random: options.random ?? Math.random,
      ...(options.pairingPhoneNumber ? { pairingPhoneNumber: options.pairingPhoneNumber } : {}),
      onQr: options.onQr ?? ((qr) => void printQrToTerminal(qr)),
      onPairingCode:
        options.onPairingCode ??
        ((code) => logger.warn({ pairingCode: code }, 'whatsapp: enter this code on the phone')),
      onLinkState: (state) => {
        lastState = state;
        options.onLinkState?.(state);
      },
      onOpen: () => inbound.onOpen(),
      onMessages: (upsert, socket) => inbound.onUpsert(upsert, socket),
    });
    const deliver = createReplySender({
      supervisor,
      messageStore,
      logger,
      sendPacingMs: options.sendPacingMs ?? 1_000,
      typingIntervalMs: options.typingIntervalMs ?? 8_000,
      chunkLength: options.chunkLength ?? 4_000,
      reconnectWaitMs: options.reconnectWaitMs ?? 30_000,
    });
    return { database, supervisor, deliver, inbound, messageStore, abortCleanup: () => {} };
  }

  const channel: WhatsAppChannel = {
    name,
    async start({ sink, abortSignal }) {
      if (running) {
        const status = running.supervisor.state().status;
        // A link WhatsApp ended stays down until someone starts the channel again to relink.
        if (status !== 'needs_relink' && status !== 'replaced') return;
        await channel.stop();
      }
      running = begin(sink);
      const current = running;
      if (abortSignal) {
        const onAbort = () => void channel.stop();
        abortSignal.addEventListener('abort', onAbort, { once: true });
        current.abortCleanup = () => abortSignal.removeEventListener('abort', onAbort);
      }
      current.inbound.start();
      current.supervisor.start();
      started.resolve();
    },
    async stopIntake() {
      running?.inbound.stopIntake();
    },
    async stop() {
      const current = running;
      if (!current) return;
      running = undefined;
      everStopped = true;
      started = Promise.withResolvers<void>();
      current.inbound.stopIntake();
      current.abortCleanup();
      await current.supervisor.stop();
      await Promise.allSettled([...deliveries]);
      await current.inbound.idle();
      current.database.close();
    },
    async deliver(deliverOptions) {
      const current = await runningForDelivery();
      const delivery = current.deliver(deliverOptions);
      deliveries.add(delivery);
      try {
        await delivery;
      } finally {
        deliveries.delete(delivery);
      }
    },
    async fetchAttachment(fetchOptions) {
      const current = await runningForDelivery();
      return fetchWhatsAppAttachment(current.messageStore.find, fetchOptions);
    },
    health(): ChannelHealth {
      const state = running?.supervisor.state() ?? lastState;
      switch (state.status) {
        case 'open':
          return { status: 'up' };
        case 'idle':
          return { status: 'stopped' };
        case 'needs_relink':
        case 'replaced':
          return { status: 'down', detail: state.detail ?? state.status };
        default:
          return { status: 'connecting', detail: state.status };
      }
    },
    linkState: () => running?.supervisor.state() ?? lastState,
    idle: () => running?.inbound.idle() ?? Promise.resolve(),
  };
  return channel;
}
