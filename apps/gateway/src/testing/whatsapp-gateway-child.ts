import type { FakeWhatsAppSocket } from '@nexus/testkit/whatsapp';
import { buildDirectMessage, createFakeWhatsAppSocketFactory, TEST_BOT_USER } from '@nexus/testkit/whatsapp';
import { createLogger } from '../composition/create-logger.ts';
import { loadConfig } from '../config/load-config.ts';
import { startGateway } from '../start-gateway.ts';

/**
 * A gateway process whose WhatsApp link is a stand-in socket driven over IPC by the test, which
 * plays WhatsApp's server: Baileys cannot handshake with anything but WhatsApp, and its socket
 * factory is an in-process option. Everything else is the real gateway (settings from the
 * environment, core with its SQLite inbox, the real adapter over Baileys' own event buffer).
 *
 * IPC in: `{ type: 'receive', upsert: 'notify' | 'append', messages: [{ id, from, text, at }] }`.
 * IPC out: `{ type: 'open' }` once a socket is linked, `{ type: 'closed' }` when the adapter ended
 * it, `{ type: 'receipt', ids }` as the socket sends it (through the adapter's
 * `deferDeliveryReceipt`, once the message is stored) or `{ type: 'not-received', ids }` when no
 * socket is linked, and `{ type: 'sent', jid, text }`.
 * SIGTERM closes the gateway as `nexus start` does (channels stop intake, core finishes or keeps).
 */
type MessageContent = Parameters<FakeWhatsAppSocket['sendMessage']>[1];
type SendOptions = Parameters<FakeWhatsAppSocket['sendMessage']>[2];

interface IncomingMessage {
  id: string;
  from: string;
  text: string;
  at: number;
}

const send = (message: unknown) => process.send?.(message);
const fake = createFakeWhatsAppSocketFactory({ user: { ...TEST_BOT_USER } });
let current: FakeWhatsAppSocket | undefined;

process.on(
  'message',
  (message: { type: string; upsert?: 'notify' | 'append'; messages?: IncomingMessage[] }) => {
    if (message.type !== 'receive') return;
    const ids = (message.messages ?? []).map((entry) => entry.id);
    if (!current || current.ended) {
      send({ type: 'not-received', ids });
      return;
    }
    const built = (message.messages ?? []).map((entry) =>
      buildDirectMessage({ id: entry.id, from: entry.from, text: entry.text, timestampSeconds: entry.at }),
    );
    current.receive(built, message.upsert ?? 'notify');
  },
);

async function linkSockets(): Promise<void> {
  for (let index = 0; ; index += 1) {
    const socket = await fake.socket(index);
    socket.onReceipt((id) => send({ type: 'receipt', ids: [id] }));
    const original = socket.sendMessage.bind(socket);
    socket.sendMessage = async (jid: string, content: MessageContent, options?: SendOptions) => {
      const text = 'text' in content && typeof content.text === 'string' ? content.text : '';
      // Sent once Baileys' sendMessage returns (it has written the frame), not when it is called.
      const sent = await original(jid, content, options);
      send({ type: 'sent', jid, text });
      return sent;
    };
    const end = socket.end.bind(socket);
    socket.end = async (error: Error | undefined) => {
      send({ type: 'closed' });
      return end(error);
    };
    current = socket;
    // Let the adapter attach its listeners to the new socket first.
    await new Promise((resolve) => setTimeout(resolve, 0));
    socket.open();
    send({ type: 'open' });
  }
}

process.umask(0o077);
const config = loadConfig({ env: process.env });
const gateway = await startGateway({
  config,
  logger: createLogger(config.log),
  whatsappSocketFactory: fake.factory,
});
void linkSockets();
process.once('SIGTERM', () => {
  gateway.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
send({ type: 'ready' });
