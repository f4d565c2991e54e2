import { readFile } from 'node:fs/promises';
import {
  type AnyMessageContent,
  type ConnectionState,
  type Contact,
  type GroupMetadata,
  type GroupParticipant,
  generateWAMessage,
  jidNormalizedUser,
  type MessageUpsertType,
  type MiscMessageGenerationOptions,
  makeEventBuffer,
  type SocketConfig,
  type UserFacingSocketConfig,
  type WAMessage,
  type WAPresence,
} from '@whiskeysockets/baileys';
import { TEST_BOT_USER } from './whatsapp-messages.ts';

type BaileysLogger = SocketConfig['logger'];

/** A Baileys logger that drops everything. */
export const silentBaileysLogger: BaileysLogger = {
  level: 'silent',
  child: () => silentBaileysLogger,
  trace() {},
  debug() {},
  info() {},
  warn() {},
  error() {},
};

export interface RecordedSend {
  jid: string;
  content: AnyMessageContent;
  options: MiscMessageGenerationOptions | undefined;
  /** What Baileys' own `generateWAMessage` built from the content. */
  message: WAMessage;
}

export interface RecordedPresence {
  type: WAPresence;
  jid: string | undefined;
}

export interface FakeWhatsAppSocket {
  /** Baileys' real event buffer, so listeners see exactly the production semantics. */
  readonly ev: ReturnType<typeof makeEventBuffer>;
  readonly user: Contact | undefined;
  readonly authState: { creds: { registered: boolean } };
  readonly sent: RecordedSend[];
  /** Encrypted media Baileys uploaded (by media URL), as WhatsApp's media servers would hold it. */
  readonly uploads: Map<string, Uint8Array>;
  readonly presenceUpdates: RecordedPresence[];
  readonly pairingCodeRequests: string[];
  /** Ids of received messages whose delivery receipt went to WhatsApp, in order. */
  readonly receipts: string[];
  /** Called with each id as its receipt is sent (a test playing WhatsApp's server listens here). */
  onReceipt(listener: (messageId: string) => void): void;
  /** Set once `end` was called (by the code under test or by `close`). */
  readonly ended: boolean;
  sendMessage(
    jid: string,
    content: AnyMessageContent,
    options?: MiscMessageGenerationOptions,
  ): Promise<WAMessage | undefined>;
  sendPresenceUpdate(type: WAPresence, toJid?: string): Promise<void>;
  requestPairingCode(phoneNumber: string): Promise<string>;
  groupMetadata(jid: string): Promise<GroupMetadata>;
  end(error: Error | undefined): Promise<void>;
  /** Server side: a group and its participants, as `groupMetadata` answers for it. */
  setGroup(jid: string, participants: GroupParticipant[]): void;
  /** Server side: the link is up. */
  open(): void;
  /** Server side: a QR to show while linking. */
  showQr(qr: string): void;
  /**
   * Server side: messages arrive (`notify` live, `append` offline/backfill). As Baileys does (with
   * our patch), each message from someone else is first offered to the config's
   * `deferDeliveryReceipt`; unless that takes the receipt over, it is sent before the upsert.
   */
  receive(messages: WAMessage[], type?: MessageUpsertType): void;
  /** Server side: the connection closes with this error (a Boom with a status code). */
  close(error: Error): void;
  /** Makes the next `count` sends fail with `error`, like a dropped connection would. */
  failNextSends(count: number, error: Error): void;
}

/**
 * A stand-in for `makeWASocket` that never touches the network. Outgoing messages are built by
 * Baileys' own `generateWAMessage` and echoed back as `append` upserts with `fromMe`, as the
 * real socket does with `emitOwnEvents`.
 */
export function createFakeWhatsAppSocket(
  options: { user?: Contact; registered?: boolean; config?: Partial<UserFacingSocketConfig> } = {},
): FakeWhatsAppSocket {
  const ev = makeEventBuffer(silentBaileysLogger);
  const sent: RecordedSend[] = [];
  const uploads = new Map<string, Uint8Array>();
  const presenceUpdates: RecordedPresence[] = [];
  const pairingCodeRequests: string[] = [];
  const receipts: string[] = [];
  const receiptListeners: ((messageId: string) => void)[] = [];
  let user = options.user;
  let ended = false;
  let failures: { count: number; error: Error } | undefined;
  const groups = new Map<string, GroupParticipant[]>();

  const end = async (error: Error | undefined) => {
    if (ended) return;
    ended = true;
    const update: Partial<ConnectionState> = {
      connection: 'close',
      lastDisconnect: { error, date: new Date() },
    };
    ev.emit('connection.update', update);
    ev.removeAllListeners('connection.update');
  };

  return {
    ev,
    get user() {
      return user;
    },
    authState: { creds: { registered: options.registered ?? options.user !== undefined } },
    sent,
    uploads,
    presenceUpdates,
    pairingCodeRequests,
    receipts,
    onReceipt(listener) {
      receiptListeners.push(listener);
    },
    get ended() {
      return ended;
    },
    async sendMessage(jid, content, sendOptions) {
      if (failures && failures.count > 0) {
        failures.count -= 1;
        throw failures.error;
      }
      if (ended) throw new Error('Connection Closed');
      const message = await generateWAMessage(jid, content, {
        userJid: jidNormalizedUser(user?.id ?? '0@s.whatsapp.net'),
        logger: silentBaileysLogger,
        // Baileys encrypts the media to a file and hands it over; the fake keeps the bytes.
        upload: async (encryptedPath, { fileEncSha256B64, mediaType }) => {
          const directPath = `/v/t62.fake-${mediaType}/${encodeURIComponent(fileEncSha256B64)}`;
          const mediaUrl = `https://mmg.whatsapp.invalid${directPath}`;
          uploads.set(mediaUrl, new Uint8Array(await readFile(encryptedPath)));
          return { mediaUrl, directPath };
        },
        ...(sendOptions?.quoted ? { quoted: sendOptions.quoted } : {}),
      });
      sent.push({ jid, content, options: sendOptions, message });
      queueMicrotask(() => ev.emit('messages.upsert', { messages: [message], type: 'append' }));
      return message;
    },
    async sendPresenceUpdate(type, jid) {
      presenceUpdates.push({ type, jid });
    },
    async requestPairingCode(phoneNumber) {
      pairingCodeRequests.push(phoneNumber);
      return `FAKE${String(pairingCodeRequests.length).padStart(4, '0')}`;
    },
    async groupMetadata(jid) {
      const participants = groups.get(jid);
      // WhatsApp answers a group the account is not in with an error (item-not-found); the
      // fake's metadata holds only the id, a subject, the size and the participants.
      if (!participants) throw new Error('item-not-found');
      return {
        id: jid,
        owner: undefined,
        subject: 'Group',
        size: participants.length,
        participants: participants.map((participant) => ({ ...participant })),
      };
    },
    setGroup(jid, participants) {
      groups.set(jid, participants);
    },
    end,
    open() {
      user ??= { ...TEST_BOT_USER };
      ev.emit('connection.update', { connection: 'open' });
    },
    showQr(qr) {
      ev.emit('connection.update', { connection: 'connecting', qr });
    },
    receive(messages, type = 'notify') {
      for (const message of messages) {
        const messageId = message.key.id;
        if (!messageId || message.key.fromMe) continue;
        const sendReceipt = async () => {
          if (ended) throw new Error('Connection Closed');
          receipts.push(messageId);
          for (const listener of receiptListeners) listener(messageId);
        };
        if (options.config?.deferDeliveryReceipt?.(message, sendReceipt) !== true) void sendReceipt();
      }
      ev.emit('messages.upsert', { messages, type });
    },
    close(error) {
      void end(error);
    },
    failNextSends(count, error) {
      failures = { count, error };
    },
  };
}

export interface FakeWhatsAppSocketFactory {
  /** Pass as `socketFactory`; each call makes a new fake socket. */
  factory: (config: UserFacingSocketConfig) => FakeWhatsAppSocket;
  readonly sockets: FakeWhatsAppSocket[];
  readonly configs: UserFacingSocketConfig[];
  /** Resolves with socket number `index` (0-based) once the code under test created it. */
  socket(index: number): Promise<FakeWhatsAppSocket>;
}

export function createFakeWhatsAppSocketFactory(
  options: { user?: Contact; registered?: boolean } = {},
): FakeWhatsAppSocketFactory {
  const sockets: FakeWhatsAppSocket[] = [];
  const configs: UserFacingSocketConfig[] = [];
  const waiters = new Map<number, ((socket: FakeWhatsAppSocket) => void)[]>();
  return {
    sockets,
    configs,
    factory(config) {
      const socket = createFakeWhatsAppSocket({ ...options, config });
      sockets.push(socket);
      configs.push(config);
      const index = sockets.length - 1;
      for (const resolve of waiters.get(index) ?? []) resolve(socket);
      waiters.delete(index);
      return socket;
    },
    socket(index) {
      const existing = sockets[index];
      if (existing) return Promise.resolve(existing);
      return new Promise((resolve) => {
        const list = waiters.get(index) ?? [];
        list.push(resolve);
        waiters.set(index, list);
      });
    },
  };
}
