import { createDecipheriv } from 'node:crypto';
import { conversationRefOf, intentSchema, type ReplyEvent, type ReplyMedia } from '@nexus/protocol';
import { makePng } from '@nexus/testkit/media';
import { buildDirectMessage, createFakeWhatsAppSocketFactory, TEST_BOT_USER } from '@nexus/testkit/whatsapp';
import { getMediaKeys, type MediaType, normalizeMessageContent } from '@whiskeysockets/baileys';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRecordingSink, createWhatsAppHarness, replyEvents } from './testing/whatsapp-harness.ts';

const ALICE_LID = '310000000002@lid';
const ALICE_PHONE = '15550000002@s.whatsapp.net';

let harness: ReturnType<typeof createWhatsAppHarness>;
beforeEach(() => {
  harness = createWhatsAppHarness();
});
afterEach(async () => {
  await harness.cleanup();
});

function mediaOf(bytes: Buffer, mimeType: string, name: string): ReplyMedia {
  const kind = mimeType.startsWith('image/') ? 'image' : 'file';
  return { kind, mimeType, name, sizeBytes: bytes.length, base64: bytes.toString('base64') };
}

function replyWith(text: string, ...media: ReplyMedia[]): ReplyEvent[] {
  return [
    { type: 'reply.start', replyId: 'r1' },
    { type: 'reply.delta', replyId: 'r1', text },
    ...media.map((item) => ({ type: 'reply.media' as const, replyId: 'r1', media: item })),
    { type: 'reply.end', replyId: 'r1', text },
  ];
}

/** Decrypts what Baileys uploaded, the way a WhatsApp client does (AES-256-CBC, 10-byte MAC at the end). */
async function decrypted(uploaded: Uint8Array, mediaKey: Uint8Array, type: MediaType): Promise<Buffer> {
  const { iv, cipherKey } = await getMediaKeys(mediaKey, type);
  const decipher = createDecipheriv('aes-256-cbc', cipherKey, iv);
  return Buffer.concat([decipher.update(uploaded.subarray(0, -10)), decipher.final()]);
}

async function openChannel() {
  const factory = createFakeWhatsAppSocketFactory({ user: { ...TEST_BOT_USER } });
  const channel = harness.channel(factory);
  const { sink, intents } = createRecordingSink();
  await channel.start({ sink });
  const socket = await factory.socket(0);
  socket.open();
  socket.receive([buildDirectMessage({ from: ALICE_LID, fromAlt: ALICE_PHONE, text: 'make a chart' })]);
  await channel.idle();
  return { channel, socket, conversation: conversationRefOf(intentSchema.parse(intents[0])) };
}

describe('WhatsApp replies with media on the fake socket', () => {
  it('sends an image message and a document message through Baileys, encrypted and uploaded', async () => {
    const { channel, socket, conversation } = await openChannel();
    const png = Buffer.from(makePng());
    const csv = Buffer.from('month,sales\njan,10\n');
    await channel.deliver({
      conversation,
      events: replyEvents(
        ...replyWith(
          'Here it is.',
          mediaOf(png, 'image/png', 'chart.png'),
          mediaOf(csv, 'text/csv', 'sales.csv'),
        ),
      ),
    });
    const [text, image, document] = socket.sent.map((send) => normalizeMessageContent(send.message.message));
    expect(text?.conversation ?? text?.extendedTextMessage?.text).toBe('Here it is.');
    const imageMessage = image?.imageMessage;
    expect(imageMessage?.mimetype).toBe('image/png');
    expect(
      await decrypted(socket.uploads.get(imageMessage!.url!)!, imageMessage!.mediaKey!, 'image'),
    ).toEqual(png);
    const documentMessage = document?.documentMessage;
    expect(documentMessage).toMatchObject({ fileName: 'sales.csv', mimetype: 'text/csv' });
    expect(
      await decrypted(socket.uploads.get(documentMessage!.url!)!, documentMessage!.mediaKey!, 'document'),
    ).toEqual(csv);
  });

  it('says honestly that a document over 100 MB could not be sent', async () => {
    const { channel, socket, conversation } = await openChannel();
    const huge = Buffer.alloc(101 * 1024 * 1024, 3);
    await channel.deliver({
      conversation,
      events: replyEvents(...replyWith('Done.', mediaOf(huge, 'application/zip', 'export.zip'))),
    });
    expect(socket.uploads.size).toBe(0);
    const texts = socket.sent.map((send) => {
      const content = normalizeMessageContent(send.message.message);
      return content?.conversation ?? content?.extendedTextMessage?.text;
    });
    expect(texts).toEqual([
      'Done.',
      '⚠️ I made export.zip (101.0 MB), but WhatsApp only takes files up to 100.0 MB, so I could not send it here.',
    ]);
  });
});
