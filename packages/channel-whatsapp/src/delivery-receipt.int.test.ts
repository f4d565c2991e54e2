import {
  type FakeWhatsAppServer,
  silentBaileysLogger,
  startFakeWhatsAppServer,
} from '@nexus/testkit/whatsapp';
import {
  type BaileysEventMap,
  type BinaryNode,
  decodeBinaryNode,
  initAuthCreds,
  makeWASocket,
  proto,
  type WAMessage,
  type WASocket,
} from '@whiskeysockets/baileys';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openWhatsAppDatabase } from './open-whatsapp-database.ts';
import { createSqliteAuthState } from './sqlite-auth-state.ts';
import { createRecordingSink, createWhatsAppHarness } from './testing/whatsapp-harness.ts';
import type { WhatsAppSocketConfig } from './whatsapp-socket.ts';

/**
 * Our patch of Baileys (pnpm-workspace.yaml, `deferDeliveryReceipt`) through the real
 * `makeWASocket`: the loopback server cannot finish WhatsApp's handshake, but the WebSocket is
 * open, so a message node handed to the socket's own `CB:message` listener runs Baileys' real
 * `handleMessage`, and the receipt it sends arrives at the server as a plain frame. The sender
 * is a LID user: for a phone-number sender Baileys first asks the server for the LID (usync),
 * which this server never answers.
 */
const ME = { id: '15550000001:7@s.whatsapp.net', lid: '210000000001:7@lid', name: 'Nexus' };
const SENDER = '310000000002@lid';

let server: FakeWhatsAppServer;
let harness: ReturnType<typeof createWhatsAppHarness>;
const sockets: WASocket[] = [];

beforeEach(async () => {
  server = await startFakeWhatsAppServer({ behavior: 'hold' });
  harness = createWhatsAppHarness();
});
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.end(undefined);
  await harness.cleanup();
  await server.close();
});

/** A text message as WhatsApp's server sends it (`plaintext`: no Signal session needed). */
function messageNode(id: string, text: string): BinaryNode {
  return {
    tag: 'message',
    attrs: { id, from: SENDER, type: 'text', t: String(Math.floor(Date.now() / 1000)), notify: 'Ann' },
    content: [
      { tag: 'plaintext', attrs: {}, content: proto.Message.encode({ conversation: text }).finish() },
    ],
  };
}

/** The ids of the delivery receipts the client sent (frames after the noise hello). */
async function receiptsSent(connectionIndex = 0): Promise<string[]> {
  const frames = server.connections[connectionIndex]?.frames.slice(1) ?? [];
  const ids: string[] = [];
  for (const frame of frames) {
    const length = (frame[0]! << 16) | (frame[1]! << 8) | frame[2]!;
    const node = await decodeBinaryNode(frame.subarray(3, 3 + length));
    if (node.tag === 'receipt' && typeof node.attrs.id === 'string') ids.push(node.attrs.id);
  }
  return ids;
}

async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs) throw new Error('condition never met');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function linkedCreds() {
  return { ...initAuthCreds(), me: ME, registered: true };
}

describe("Baileys' delivery receipt (patched)", () => {
  it('waits while deferDeliveryReceipt holds it, and goes when the holder sends it', async () => {
    const held: { message: WAMessage; send: () => Promise<void> }[] = [];
    const upserts: BaileysEventMap['messages.upsert'][] = [];
    const config: WhatsAppSocketConfig = {
      waWebSocketUrl: server.url,
      connectTimeoutMs: 30_000,
      logger: silentBaileysLogger,
      auth: { creds: linkedCreds(), keys: { get: async () => ({}), set: async () => {} } },
      deferDeliveryReceipt: (message, send) => {
        held.push({ message, send });
        return true;
      },
    };
    const socket = makeWASocket(config);
    sockets.push(socket);
    socket.ev.on('messages.upsert', (upsert) => upserts.push(upsert));
    await server.waitForConnections(1);
    await until(() => socket.ws.isOpen);

    socket.ws.emit('CB:message', messageNode('3EB0HELD0001', 'hello'));
    await until(() => upserts.length === 1);
    expect(held.map((entry) => entry.message.key.id)).toEqual(['3EB0HELD0001']);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await receiptsSent()).toEqual([]);

    await held[0]?.send();
    await until(async () => (await receiptsSent()).length === 1);
    expect(await receiptsSent()).toEqual(['3EB0HELD0001']);
  });

  it('without deferDeliveryReceipt the receipt goes by itself, as unpatched Baileys sends it', async () => {
    const socket = makeWASocket({
      waWebSocketUrl: server.url,
      connectTimeoutMs: 30_000,
      logger: silentBaileysLogger,
      auth: { creds: linkedCreds(), keys: { get: async () => ({}), set: async () => {} } },
    });
    sockets.push(socket);
    await server.waitForConnections(1);
    await until(() => socket.ws.isOpen);
    socket.ws.emit('CB:message', messageNode('3EB0FREE0001', 'hello'));
    await until(async () => (await receiptsSent()).length === 1);
    expect(await receiptsSent()).toEqual(['3EB0FREE0001']);
  });

  it('the channel sends the receipt once the message is in wa_pending_intake', async () => {
    const seed = openWhatsAppDatabase(harness.authPath);
    const auth = createSqliteAuthState({ database: seed });
    Object.assign(auth.state.creds, linkedCreds());
    auth.saveCreds();
    seed.close();

    const made: WASocket[] = [];
    // Core refuses it for now (retryable): the message stays in wa_pending_intake.
    const { sink, intents } = createRecordingSink({
      status: 'rejected',
      code: 'shutting_down',
      message: 'stopping',
      retryable: true,
    });
    const channel = harness.channel(undefined, {
      socketFactory: (config) => {
        const socket = makeWASocket(config);
        made.push(socket);
        return socket;
      },
      waWebSocketUrl: server.url,
      socketConfig: { connectTimeoutMs: 30_000 },
      watchdogMs: 60_000,
      intakeRetryDelayMs: 60_000,
    });
    await channel.start({ sink });
    await server.waitForConnections(1);
    const socket = made[0];
    if (!socket) throw new Error('no socket');
    await until(() => socket.ws.isOpen);

    socket.ws.emit('CB:message', messageNode('3EB0CHAN0001', 'please remember'));
    await until(async () => (await receiptsSent()).length === 1);
    expect(await receiptsSent()).toEqual(['3EB0CHAN0001']);
    expect(intents.map((intent) => intent.text)).toEqual(['please remember']);
    // A redelivery (no receipt reached WhatsApp, say) is a duplicate: receipt again, no intent.
    socket.ws.emit('CB:message', messageNode('3EB0CHAN0001', 'please remember'));
    await until(async () => (await receiptsSent()).length === 2);
    expect(intents).toHaveLength(1);

    await channel.stop();
    const database = openWhatsAppDatabase(harness.authPath);
    const pending = database.prepare('SELECT id FROM wa_pending_intake').all();
    database.close();
    expect(pending.map((row) => row.id)).toEqual([`${SENDER}/3EB0CHAN0001`]);
  });
});
