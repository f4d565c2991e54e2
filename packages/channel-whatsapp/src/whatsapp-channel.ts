import type { DatabaseSync } from 'node:sqlite';
import {
  DEFAULT_OUTBOUND_TIMEOUT_MS,
  KeyedSerialQueue,
  type OutboundFetchPolicy,
  PLATFORM_MEDIA_HOSTS,
} from '@nexus/channel-kit';
import {
  type ChannelAdapter,
  type ChannelHealth,
  type IntentSink,
  NexusError,
  silentLogger,
} from '@nexus/protocol';
import { isJidNewsletter, isJidStatusBroadcast, makeWASocket } from '@whiskeysockets/baileys';
import { toBaileysLogger } from './baileys-logger.ts';
import { whatsAppCapabilities } from './capabilities.ts';
import { type ConnectionSupervisor, createConnectionSupervisor } from './connection-supervisor.ts';
import { createDeliverWhatsAppReply } from './deliver-reply.ts';
import { fetchWhatsAppAttachment } from './fetch-attachment.ts';
import { createHeldReceipts, type HeldReceipts } from './held-receipts.ts';
import { createInboundHandler } from './inbound-handler.ts';
import { printQrToTerminal, type WhatsAppLinkState } from './link-state.ts';
import { openWhatsAppDatabase } from './open-whatsapp-database.ts';
import { createSqliteAuthState } from './sqlite-auth-state.ts';
import { createSqliteMessageStore, type MessageStore } from './sqlite-message-store.ts';
import type { WhatsAppChannelOptions } from './whatsapp-channel-options.ts';

export interface WhatsAppChannel extends ChannelAdapter {
  /** Link status with the current QR payload or pairing code, for an admin view. */
  linkState(): WhatsAppLinkState;
  /** Resolves when every received message has been handed to the sink. */
  idle(): Promise<void>;
}

interface Running {
  database: DatabaseSync;
  supervisor: ConnectionSupervisor;
  deliver: ReturnType<typeof createDeliverWhatsAppReply>;
  inbound: ReturnType<typeof createInboundHandler>;
  messageStore: MessageStore;
  receipts: HeldReceipts;
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
  // Declared once; the reply sender cuts replies at the length declared here.
  const capabilities = whatsAppCapabilities(options.chunkLength ?? 4_000);
  const logger = (options.logger ?? silentLogger).child({ channel: name });
  const now = options.now ?? Date.now;
  let running: Running | undefined;
  let lastState: WhatsAppLinkState = { status: 'idle', updatedAt: new Date(now()).toISOString() };
  const deliveries = new Set<Promise<void>>();
  /** Wakes deliveries that arrived before `start` (core replays its inbox while channels start). */
  let started = Promise.withResolvers<void>();
  let everStopped = false;
  const mediaPolicy: OutboundFetchPolicy = {
    platform: 'WhatsApp',
    allowedHosts: PLATFORM_MEDIA_HOSTS.whatsapp,
    timeoutMs: options.mediaDownload?.timeoutMs ?? DEFAULT_OUTBOUND_TIMEOUT_MS,
    ...(options.mediaDownload?.configuredOrigins
      ? { configuredOrigins: options.mediaDownload.configuredOrigins }
      : {}),
    ...(options.mediaDownload?.resolve ? { resolve: options.mediaDownload.resolve } : {}),
  };

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
    const receipts = createHeldReceipts({ logger, maxHoldMs: options.receiptMaxHoldMs ?? 60_000 });
    const inbound = createInboundHandler({
      channel: name,
      database,
      messageStore,
      sink,
      queue: new KeyedSerialQueue(),
      logger,
      now,
      appendMaxAgeMs: options.appendMaxAgeMs ?? 24 * 60 * 60 * 1000,
      groupMessages: options.groupMessages ?? 'mentioned',
      retryDelayMs: options.intakeRetryDelayMs ?? 2_000,
      receipts,
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
        // Our patch of Baileys (pnpm-workspace.yaml): the receipt waits for the inbound write.
        deferDeliveryReceipt: receipts.hold,
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
    const deliver = createDeliverWhatsAppReply({
      supervisor,
      messageStore,
      logger,
      sendPacingMs: options.sendPacingMs ?? 1_000,
      typingIntervalMs: options.typingIntervalMs ?? 8_000,
      chunkLength: capabilities.maxMessageChars,
      reconnectWaitMs: options.reconnectWaitMs ?? 30_000,
    });
    return { database, supervisor, deliver, inbound, messageStore, receipts, abortCleanup: () => {} };
  }

  const channel: WhatsAppChannel = {
    name,
    capabilities,
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
      current.receipts.clear();
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
    async isGroupAdmin({ conversationId, platformId }) {
      const socket = running?.supervisor.openSocket();
      if (!socket || !conversationId.endsWith('@g.us')) return false;
      const { participants } = await socket.groupMetadata(conversationId);
      // A participant is named by LID or phone JID depending on the group's addressing mode.
      const participant = participants.find((candidate) =>
        [candidate.id, candidate.lid, candidate.phoneNumber].includes(platformId),
      );
      return participant?.admin === 'admin' || participant?.admin === 'superadmin';
    },
    async fetchAttachment(fetchOptions) {
      const current = await runningForDelivery();
      return fetchWhatsAppAttachment(current.messageStore.find, mediaPolicy, fetchOptions);
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
