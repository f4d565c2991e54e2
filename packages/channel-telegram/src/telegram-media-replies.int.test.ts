import { conversationRefOf, intentSchema, type ReplyEvent, type ReplyMedia } from '@nexus/protocol';
import { makePng } from '@nexus/testkit/media';
import { Api, InputFile } from 'grammy';
import { afterEach, describe, expect, it } from 'vitest';
import { startTelegramHarness, streamOf, type TelegramHarness } from './testing/telegram-harness.ts';

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

  it('sends an "image" whose size cannot be read as a document, which Telegram takes as it is', async () => {
    const ref = await conversation();
    const notAnImage = Buffer.from('this is not a PNG at all');
    await harness.channel.deliverWithOutcome({
      conversation: ref,
      events: streamOf(replyWith('Here.', { media: mediaOf(notAnImage, 'image/png', 'broken.png') })),
    });
    expect(harness.fake.calls('sendPhoto')).toHaveLength(0);
    expect(harness.fake.botMessages(chat.id).map((message) => message.media?.type ?? 'text')).toEqual([
      'text',
      'document',
    ]);
  });

  it('tells the person when Telegram refuses a photo', async () => {
    const ref = await conversation();
    harness.fake.failNext('sendPhoto', {
      kind: 'custom',
      errorCode: 400,
      description: 'Bad Request: IMAGE_PROCESS_FAILED',
    });
    await harness.channel.deliverWithOutcome({
      conversation: ref,
      events: streamOf(
        replyWith('Here.', { media: mediaOf(Buffer.from(makePng(8, 8)), 'image/png', 'dot.png') }),
      ),
    });
    expect(harness.fake.calls('sendPhoto')[0]?.status).toBe(400);
    expect(harness.fake.botMessages(chat.id).map((message) => message.text)).toEqual([
      'Here.',
      '⚠️ I made dot.png, but Telegram did not accept it, so it is not attached.',
    ]);
  });

  it('sends a long screenshot and an over-sized picture as documents: Telegram refuses them as photos', async () => {
    const ref = await conversation();
    // Ratio 21 (over 20), and width + height 10,050 (over 10,000).
    const tall = Buffer.from(makePng(100, 2100));
    const large = Buffer.from(makePng(50, 10_000));
    const api = new Api(harness.fake.token, { apiRoot: harness.fake.apiRoot });
    await expect(api.sendPhoto(chat.id, new InputFile(tall, 'tall.png'))).rejects.toThrow(
      /PHOTO_INVALID_DIMENSIONS/,
    );
    await expect(api.sendPhoto(chat.id, new InputFile(large, 'large.png'))).rejects.toThrow(
      /PHOTO_INVALID_DIMENSIONS/,
    );

    const outcome = await harness.channel.deliverWithOutcome({
      conversation: ref,
      events: streamOf(
        replyWith(
          'Screens.',
          { media: mediaOf(tall, 'image/png', 'tall.png') },
          { media: mediaOf(large, 'image/png', 'large.png') },
          { media: mediaOf(Buffer.from(makePng(100, 1999)), 'image/png', 'fine.png') },
        ),
      ),
    });
    expect(outcome.status).toBe('delivered');
    const sent = harness.fake
      .botMessages(chat.id)
      .map((message) => [message.media?.type, message.media?.fileName]);
    expect(sent).toEqual([
      [undefined, undefined],
      ['document', 'tall.png'],
      ['document', 'large.png'],
      ['photo', 'fine.png'],
    ]);
  });

  it('cuts a long caption at 1,024 UTF-16 units without splitting an emoji', async () => {
    const ref = await conversation();
    const caption = `${'a'.repeat(1023)}😀 and more`;
    await harness.channel.deliverWithOutcome({
      conversation: ref,
      events: streamOf(
        replyWith('Pic.', { media: mediaOf(Buffer.from(makePng(8, 8)), 'image/png', 'dot.png'), caption }),
      ),
    });
    const photo = harness.fake.botMessages(chat.id)[1];
    expect(photo?.media?.type).toBe('photo');
    expect(photo?.text).toBe('a'.repeat(1023));
    expect(photo?.text).not.toContain('\uFFFD');
  });
});
