import { conversationRefOf, intentSchema, type ReplyEvent, type ReplyMedia } from '@nexus/protocol';
import { makePng } from '@nexus/testkit/media';
import { afterEach, describe, expect, it } from 'vitest';
import { startTelegramHarness, streamOf, type TelegramHarness } from './test-support/telegram-harness.ts';

const chat = { id: 2101, type: 'private', firstName: 'Ada' } as const;

let harness: TelegramHarness;
afterEach(async () => {
  await harness?.close();
});

async function conversation() {
  harness = await startTelegramHarness();
  harness.fake.pushMessage({ chat, text: 'make me something' });
  const [intent] = await harness.waitForIntents(1);
  return conversationRefOf(intentSchema.parse(intent));
}

function mediaOf(bytes: Buffer, mimeType: string, name: string): ReplyMedia {
  const kind = mimeType.startsWith('image/') ? 'image' : 'file';
  return { kind, mimeType, name, sizeBytes: bytes.length, base64: bytes.toString('base64') };
}

function replyWith(text: string, ...media: { media: ReplyMedia; caption?: string }[]): ReplyEvent[] {
  return [
    { type: 'reply.start', replyId: 'r1' },
    { type: 'reply.delta', replyId: 'r1', text },
    ...media.map((item) => ({ type: 'reply.media' as const, replyId: 'r1', ...item })),
    { type: 'reply.end', replyId: 'r1', text },
  ];
}

describe('Telegram replies with media against the fake Bot API', () => {
  it('sends a PNG with sendPhoto and a PDF with sendDocument, as multipart uploads, after the text', async () => {
    const ref = await conversation();
    const png = Buffer.from(makePng(16, 16));
    const pdf = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');
    const outcome = await harness.channel.deliverWithOutcome({
      conversation: ref,
      events: streamOf(
        replyWith(
          'Here you go.',
          { media: mediaOf(png, 'image/png', 'chart.png'), caption: 'Sales by month' },
          { media: mediaOf(pdf, 'application/pdf', 'report.pdf') },
        ),
      ),
    });
    expect(outcome.status).toBe('delivered');
    const messages = harness.fake.botMessages(chat.id);
    expect(messages.map((message) => message.media?.type ?? 'text')).toEqual(['text', 'photo', 'document']);
    expect(messages[0]?.text).toBe('Here you go.');
    expect(messages[1]?.text).toBe('Sales by month');
    expect(Buffer.from(messages[1]!.media!.bytes).equals(png)).toBe(true);
    expect(messages[2]?.media?.fileName).toBe('report.pdf');
    expect(Buffer.from(messages[2]!.media!.bytes).equals(pdf)).toBe(true);
    expect(outcome.messageIds).toEqual(messages.map((message) => message.messageId));
    expect(harness.fake.calls('sendPhoto')).toHaveLength(1);
    expect(harness.fake.calls('sendDocument')).toHaveLength(1);
  });

  it('says honestly that a file over the 50 MB bot limit could not be sent, without uploading it', async () => {
    const ref = await conversation();
    const huge = Buffer.alloc(51 * 1024 * 1024, 7);
    await harness.channel.deliverWithOutcome({
      conversation: ref,
      events: streamOf(replyWith('Done.', { media: mediaOf(huge, 'application/zip', 'export.zip') })),
    });
    expect(harness.fake.calls('sendDocument')).toHaveLength(0);
    const texts = harness.fake.botMessages(chat.id).map((message) => message.text);
    expect(texts).toEqual([
      'Done.',
      '⚠️ I made export.zip (51.0 MB), but Telegram only takes files up to 50.0 MB, so I could not send it here.',
    ]);
  });

  it('tells the person when Telegram refuses a photo whose bytes are not an image', async () => {
    const ref = await conversation();
    const notAnImage = Buffer.from('this is not a PNG at all');
    await harness.channel.deliverWithOutcome({
      conversation: ref,
      events: streamOf(replyWith('Here.', { media: mediaOf(notAnImage, 'image/png', 'broken.png') })),
    });
    expect(harness.fake.calls('sendPhoto')[0]?.status).toBe(400);
    expect(harness.fake.botMessages(chat.id).map((message) => message.text)).toEqual([
      'Here.',
      '⚠️ I made broken.png, but Telegram did not accept it, so it is not attached.',
    ]);
  });
});
