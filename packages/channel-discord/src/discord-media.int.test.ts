import type { ChannelAdapter, IntentInput, ReplyEvent, ReplyMedia } from '@nexus/protocol';
import { NexusError } from '@nexus/protocol';
import { type FakeDiscord, startFakeDiscord } from '@nexus/testkit/discord';
import { makePng } from '@nexus/testkit/media';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  conversationFor,
  createRecordingSink,
  createTestChannel,
  type RecordingSink,
  replyEvents,
} from './testing/discord-harness.ts';

let fake: FakeDiscord;
let channel: ChannelAdapter;
let recording: RecordingSink;

beforeEach(async () => {
  fake = await startFakeDiscord();
  recording = createRecordingSink();
  channel = createTestChannel(fake, { typingIntervalMs: 60 });
  await channel.start({ sink: recording.sink });
});

afterEach(async () => {
  await channel.stop();
  await fake.close();
});

async function directIntent(attachments?: { filename: string; contentType: string; content: Uint8Array }[]) {
  const before = recording.intents.length;
  fake.injectDirectMessage({
    content: attachments ? '' : 'draw it',
    ...(attachments ? { attachments } : {}),
  });
  return fake.waitFor(() => recording.intents.length > before && (recording.intents.at(-1) as IntentInput));
}

function mediaOf(bytes: Buffer, mimeType: string, name: string): ReplyMedia {
  const kind = mimeType.startsWith('image/') ? 'image' : 'file';
  return { kind, mimeType, name, sizeBytes: bytes.length, base64: bytes.toString('base64') };
}

function replyWith(text: string, media: ReplyMedia): ReplyEvent[] {
  return [
    { type: 'reply.start', replyId: 'r1' },
    { type: 'reply.delta', replyId: 'r1', text },
    { type: 'reply.media', replyId: 'r1', media },
    { type: 'reply.end', replyId: 'r1', text },
  ];
}

describe('discord media', () => {
  it('sends a reply image as a multipart attachment after the text', async () => {
    const conversation = conversationFor(await directIntent());
    const png = Buffer.from(makePng(12, 12));
    await channel.deliver({
      conversation,
      events: replyEvents(...replyWith('Your chart:', mediaOf(png, 'image/png', 'chart.png'))),
    });
    const [text, file] = fake.sentMessages;
    expect(text?.content).toBe('Your chart:');
    expect(file?.files).toHaveLength(1);
    expect(file?.files?.[0]?.filename).toBe('chart.png');
    expect(Buffer.from(file!.files![0]!.bytes).equals(png)).toBe(true);
  });

  it('says honestly that a file over the 10 MB limit could not be sent, without uploading it', async () => {
    const conversation = conversationFor(await directIntent());
    const big = Buffer.alloc(11 * 1024 * 1024, 1);
    await channel.deliver({
      conversation,
      events: replyEvents(...replyWith('Done.', mediaOf(big, 'application/zip', 'export.zip'))),
    });
    expect(fake.sentMessages.some((message) => message.files)).toBe(false);
    expect(fake.sentMessages.map((message) => message.content)).toEqual([
      'Done.',
      '⚠️ I made export.zip (11.0 MB), but Discord only takes files up to 10.0 MB, so I could not send it here.',
    ]);
  });

  it('downloads an attachment through its signed CDN URL, and refuses past the byte cap', async () => {
    const png = Buffer.from(makePng(20, 20));
    const intent = await directIntent([{ filename: 'photo.png', contentType: 'image/png', content: png }]);
    const [attachment] = intent.attachments ?? [];
    expect(attachment).toMatchObject({ kind: 'image', name: 'photo.png', sizeBytes: png.length });
    const fetched = await channel.fetchAttachment!({ attachment: attachment!, maxBytes: 1024 * 1024 });
    expect(Buffer.from(fetched.bytes).equals(png)).toBe(true);
    expect(fetched.mimeType).toBe('image/png');

    const capped = channel.fetchAttachment!({ attachment: attachment!, maxBytes: png.length - 1 });
    await expect(capped).rejects.toMatchObject({ code: 'attachment_too_large', retryable: false });
    // Size unknown up front: the download itself stops at the cap.
    const { sizeBytes: _size, ...unsized } = attachment!;
    await expect(channel.fetchAttachment!({ attachment: unsized, maxBytes: 16 })).rejects.toMatchObject({
      code: 'attachment_too_large',
    });
  });

  it('answers a tampered or foreign attachment URL with attachment_unavailable', async () => {
    const intent = await directIntent([
      { filename: 'a.png', contentType: 'image/png', content: Buffer.from(makePng()) },
    ]);
    const attachment = intent.attachments![0]!;
    const tampered = { ...attachment, url: attachment.url!.replace(/hm=[0-9a-f]+/, 'hm=00') };
    const refused = await channel.fetchAttachment!({ attachment: tampered, maxBytes: 1024 }).catch((e) => e);
    expect(refused).toBeInstanceOf(NexusError);
    expect(refused).toMatchObject({ code: 'attachment_unavailable', retryable: false });
    const foreign = { ...attachment, url: 'http://169.254.169.254/latest/meta-data' };
    await expect(channel.fetchAttachment!({ attachment: foreign, maxBytes: 1024 })).rejects.toMatchObject({
      code: 'attachment_unavailable',
    });
  });
});
