import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Attachment, type ChannelAdapter, NexusError } from '@nexus/protocol';
import type { ChatCompletionRequest } from '@nexus/testkit/llm';
import {
  makeCompressedBombPdf,
  makeFilterChainBombPdf,
  makeOggOpusVoiceNote,
  makePdf,
  makePng,
} from '@nexus/testkit/media';
import { afterEach, describe, expect, it } from 'vitest';
import { createRecordingChannel, testIntent } from '../testing/recording-channel.ts';
import { type ScriptedCore, startScriptedCore } from '../testing/scripted-core.ts';
import { createFileMediaStore } from './media-store.ts';

/** A channel whose platform holds files by id, as Telegram's getFile does. */
function channelWithFiles(files: Map<string, Uint8Array | 'slow'>) {
  const recording = createRecordingChannel();
  const adapter: ChannelAdapter = {
    ...recording.adapter,
    async fetchAttachment({ attachment, maxBytes, abortSignal }) {
      const file = files.get(attachment.platformFileId ?? '');
      if (file === 'slow') {
        return new Promise((_, reject) =>
          abortSignal?.addEventListener('abort', () => reject(abortSignal.reason)),
        );
      }
      if (!file) throw new NexusError({ code: 'attachment_unavailable', message: 'gone' });
      if (file.byteLength > maxBytes) throw new NexusError({ code: 'attachment_too_large', message: 'big' });
      return { bytes: file };
    },
  };
  return { ...recording, adapter };
}

function userContent(scripted: ScriptedCore, index: number): unknown {
  const body = scripted.model.chatRequests()[index]?.body as ChatCompletionRequest | undefined;
  return body?.messages.findLast((message) => message.role === 'user')?.content;
}

let scripted: ScriptedCore | undefined;
afterEach(async () => {
  await scripted?.close();
  scripted = undefined;
});

async function send(
  core: ScriptedCore,
  channel: ReturnType<typeof channelWithFiles>,
  id: string,
  text: string,
  attachments: Attachment[],
) {
  await core.core.intake({ ...testIntent({ id, text }), attachments });
  await core.core.whenIdle();
  return channel.replyTextOf(id) ?? '';
}

describe('what core keeps', () => {
  let folder: string | undefined;
  afterEach(async () => {
    if (folder) await rm(folder, { recursive: true, force: true });
    folder = undefined;
  });

  it('stores only attachments it used, within the daily quota, and then refuses without downloading', async () => {
    folder = await mkdtemp(join(tmpdir(), 'nexus-media-kept-'));
    const store = createFileMediaStore({
      directory: folder,
      retentionDays: 1,
      maxBytesPerPersonPerDay: 3000,
    });
    scripted = await startScriptedCore({ media: { vision: true, store } });
    const fetched: string[] = [];
    const files = new Map<string, Uint8Array>([
      ['photo', makePng(20, 20)],
      ['zip', Uint8Array.from([0x50, 0x4b, 0x03, 0x04, ...new Uint8Array(2000)])],
      ['notes', new TextEncoder().encode('Buy oat milk. '.repeat(200))],
      ['more-notes', new TextEncoder().encode('Call the bank. '.repeat(100))],
    ]);
    const channel = channelWithFiles(files);
    const fetchAttachment = channel.adapter.fetchAttachment?.bind(channel.adapter);
    channel.adapter.fetchAttachment = async (options) => {
      fetched.push(options.attachment.platformFileId ?? '');
      return (fetchAttachment as NonNullable<typeof fetchAttachment>)(options);
    };
    scripted.core.registerChannel(channel.adapter);
    const kept = async () =>
      (await readdir(folder as string, { recursive: true, withFileTypes: true })).filter((entry) =>
        entry.isFile(),
      ).length;

    await send(scripted, channel, 'm1', 'look', [
      { kind: 'image', platformFileId: 'photo' },
      { kind: 'document', platformFileId: 'zip', name: 'a.zip' },
    ]);
    // The photo was used and kept; the archive was refused and never written.
    expect(await kept()).toBe(1);
    await send(scripted, channel, 'm2', 'read', [
      { kind: 'document', platformFileId: 'notes', name: 'n.txt' },
    ]);
    expect(await kept()).toBe(2);
    // 2,800 bytes of notes leave less than this file's size of today's quota.
    const reply = await send(scripted, channel, 'm3', 'and this', [
      { kind: 'document', platformFileId: 'more-notes', name: 'm.txt' },
    ]);
    expect(reply).toMatch(/as many files today as I keep for one person in a day/);
    expect(await kept()).toBe(2);
    // Another file of theirs (a web upload, say) takes what is left of the day.
    const person = testIntent({ id: 'x', text: '' }).userId;
    await store.put(new Uint8Array(await store.bytesLeftToday(person)).fill(7), person);
    expect(await store.bytesLeftToday(person)).toBe(0);
    fetched.length = 0;
    const refused = await send(scripted, channel, 'm4', 'again', [
      { kind: 'image', platformFileId: 'photo' },
    ]);
    expect(refused).toMatch(/Try again tomorrow/);
    expect(fetched).toEqual([]);
  });
});

describe('attachments through core', () => {
  it('passes a PNG to a vision model as an image part typed from its bytes', async () => {
    scripted = await startScriptedCore({ media: { vision: true } });
    const channel = channelWithFiles(new Map([['photo-1', makePng()]]));
    scripted.core.registerChannel(channel.adapter);
    // The platform calls it a JPEG; the bytes say PNG, and the bytes win.
    await send(scripted, channel, 'm1', 'what colour is this?', [
      { kind: 'image', platformFileId: 'photo-1', mimeType: 'image/jpeg' },
    ]);
    const content = JSON.stringify(userContent(scripted, 0));
    expect(content).toContain('data:image/png;base64,');
    expect(content).toContain('what colour is this?');
  });

  it('answers honestly without a model call when the model has no vision', async () => {
    scripted = await startScriptedCore({ media: { vision: false } });
    const channel = channelWithFiles(new Map([['photo-1', makePng()]]));
    scripted.core.registerChannel(channel.adapter);
    const reply = await send(scripted, channel, 'm1', '', [{ kind: 'image', platformFileId: 'photo-1' }]);
    expect(reply).toMatch(/cannot see images/);
    expect(scripted.model.chatRequests()).toHaveLength(0);
  });

  it('transcribes a voice note, shows what it heard and uses it as the turn text and history', async () => {
    scripted = await startScriptedCore({ media: { transcribe: true } });
    scripted.model.setTranscript('remind me to buy oat milk');
    const channel = channelWithFiles(new Map([['voice-1', makeOggOpusVoiceNote()]]));
    scripted.core.registerChannel(channel.adapter);
    const reply = await send(scripted, channel, 'm1', '', [{ kind: 'voice', platformFileId: 'voice-1' }]);
    expect(reply).toContain('🎤 I heard: “remind me to buy oat milk”');
    const upload = scripted.model.transcriptionRequests()[0]?.transcription;
    expect(upload?.fileHead.startsWith('4f676753')).toBe(true);
    expect(upload?.fileName).toBe('voice.ogg');
    expect(scripted.lastUserText(0)).toBe('remind me to buy oat milk');
    await send(scripted, channel, 'm2', 'and what did I ask before?', []);
    const history = JSON.stringify(scripted.model.chatRequests()[1]?.body);
    expect(history).toContain('remind me to buy oat milk');
  });

  it('cuts a transcript longer than any typed message may be, and says so to the model', async () => {
    scripted = await startScriptedCore({ media: { transcribe: true } });
    scripted.model.setTranscript('word '.repeat(8_000));
    const channel = channelWithFiles(new Map([['voice-1', makeOggOpusVoiceNote()]]));
    scripted.core.registerChannel(channel.adapter);
    await send(scripted, channel, 'm1', '', [{ kind: 'voice', platformFileId: 'voice-1' }]);
    const text = scripted.lastUserText(0) ?? '';
    expect(text).toMatch(/\n\[transcript cut: 79\d\d characters left out\]$/u);
    expect(text.length).toBeLessThan(32_000 + 100);
  });

  it('says so when no transcriber is configured', async () => {
    scripted = await startScriptedCore();
    const channel = channelWithFiles(new Map([['voice-1', makeOggOpusVoiceNote()]]));
    scripted.core.registerChannel(channel.adapter);
    const reply = await send(scripted, channel, 'm1', '', [{ kind: 'voice', platformFileId: 'voice-1' }]);
    expect(reply).toMatch(/no transcription service is configured/);
  });

  it('passes PDF text as context, reading only the first pages of a 10,000-page PDF', async () => {
    scripted = await startScriptedCore({ media: { pdfMaxPages: 3 } });
    const long = makePdf(Array.from({ length: 10_000 }, (_, index) => `Clause ${index + 1} applies.`));
    const channel = channelWithFiles(
      new Map([
        ['doc-1', makePdf(['The invoice total is 42 euros.'])],
        ['doc-2', long],
      ]),
    );
    scripted.core.registerChannel(channel.adapter);
    await send(scripted, channel, 'm1', 'summarise', [
      { kind: 'document', platformFileId: 'doc-1', name: 'invoice.pdf' },
    ]);
    expect(JSON.stringify(userContent(scripted, 0))).toContain('The invoice total is 42 euros.');
    await send(scripted, channel, 'm2', 'and this one', [
      { kind: 'document', platformFileId: 'doc-2', name: 'terms.pdf' },
    ]);
    const second = JSON.stringify(userContent(scripted, 1));
    expect(second).toContain('Clause 3 applies.');
    expect(second).not.toContain('Clause 4 applies.');
    expect(second).toContain('pages 1-3 of 10000');
  });

  it('refuses oversized, corrupt, bomb and unknown files clearly and still answers the next message', async () => {
    scripted = await startScriptedCore({
      media: { vision: true, maxBytes: 1024 * 1024, timeBudgetMs: 1500 },
    });
    const fakePng = new TextEncoder().encode('this is not a png at all \u0000\u0001');
    const channel = channelWithFiles(
      new Map<string, Uint8Array | 'slow'>([
        ['big', new Uint8Array(2 * 1024 * 1024)],
        ['fake', fakePng],
        ['bomb', makeCompressedBombPdf(128 * 1024 * 1024)],
        ['zip', Uint8Array.from([0x50, 0x4b, 0x03, 0x04, 0, 0, 0, 0])],
        ['slow', 'slow'],
      ]),
    );
    scripted.core.registerChannel(channel.adapter);
    expect(await send(scripted, channel, 'm1', '', [{ kind: 'image', platformFileId: 'big' }])).toMatch(
      /larger than the 1 MB/,
    );
    expect(await send(scripted, channel, 'm2', '', [{ kind: 'image', platformFileId: 'fake' }])).toMatch(
      /damaged or is not what/,
    );
    expect(
      await send(scripted, channel, 'm3', '', [{ kind: 'document', platformFileId: 'bomb', name: 'x.pdf' }]),
    ).toMatch(/expands to more than the \d+ MB I can safely open/);
    expect(
      await send(scripted, channel, 'm4', '', [{ kind: 'document', platformFileId: 'zip', name: 'a.zip' }]),
    ).toMatch(/not this kind of file/);
    expect(await send(scripted, channel, 'm5', '', [{ kind: 'image', platformFileId: 'slow' }])).toMatch(
      /took too long/,
    );
    expect(scripted.model.chatRequests()).toHaveLength(0);
    expect(await send(scripted, channel, 'm6', 'still there?', [])).toBe('Echo: still there?');
  });

  it('refuses PDFs whose /Filter chain decodes to far more than the memory budget, and answers the next message', async () => {
    scripted = await startScriptedCore({ media: { timeBudgetMs: 30_000 } });
    const channel = channelWithFiles(
      new Map<string, Uint8Array | 'slow'>([
        // A few KB each; pdf.js would decode them to 768 MiB of zeros.
        ['flate-flate', await makeFilterChainBombPdf(768 * 1024 * 1024, 'flate-flate')],
        ['hex-flate', await makeFilterChainBombPdf(768 * 1024 * 1024, 'hex-flate')],
        ['fine', makePdf(['The invoice total is 42 euros.'])],
      ]),
    );
    scripted.core.registerChannel(channel.adapter);
    for (const id of ['flate-flate', 'hex-flate']) {
      expect(
        await send(scripted, channel, `m-${id}`, '', [
          { kind: 'document', platformFileId: id, name: 'x.pdf' },
        ]),
      ).toBe('I cannot read your file "x.pdf": it expands to more than the 320 MB I can safely open.');
    }
    expect(scripted.model.chatRequests()).toHaveLength(0);
    await send(scripted, channel, 'm-fine', 'total?', [
      { kind: 'document', platformFileId: 'fine', name: 'a.pdf' },
    ]);
    expect(JSON.stringify(userContent(scripted, 0))).toContain('The invoice total is 42 euros.');
  });

  it('bounds one message: ten attachments read, bytes and time shared across the message', async () => {
    scripted = await startScriptedCore({
      media: { vision: true, maxBytes: 1024 * 1024, timeBudgetMs: 600 },
    });
    const bigPng = new Uint8Array(900 * 1024);
    bigPng.set(makePng());
    const channel = channelWithFiles(
      new Map<string, Uint8Array | 'slow'>([
        ['png', makePng()],
        ['big', bigPng],
        ['slow', 'slow'],
      ]),
    );
    scripted.core.registerChannel(channel.adapter);
    const twelve = Array.from({ length: 12 }, () => ({ kind: 'image' as const, platformFileId: 'png' }));
    await send(scripted, channel, 'm1', 'an album', twelve);
    const parts = userContent(scripted, 0) as { type: string }[];
    expect(parts.filter((part) => part.type === 'image' || part.type === 'image_url')).toHaveLength(10);
    expect(channel.replyTextOf('m1')).toMatch(
      /first 10 attachments of your message and left out the other 2/,
    );

    // Three files of 0.9 MB each fit the 1 MB per-file cap, but only two fit the message's 2 MB.
    const three = Array.from({ length: 3 }, () => ({ kind: 'image' as const, platformFileId: 'big' }));
    expect(await send(scripted, channel, 'm2', 'three big ones', three)).toMatch(
      /together with the other files in your message it goes over the 2 MB/,
    );

    // Four slow files each have 600 ms, but the message as a whole has 1.2 s, not 2.4 s.
    const startedAt = Date.now();
    const slow = Array.from({ length: 4 }, () => ({ kind: 'image' as const, platformFileId: 'slow' }));
    const reply = await send(scripted, channel, 'm3', '', slow);
    expect(reply.match(/took too long/g)).toHaveLength(4);
    expect(Date.now() - startedAt).toBeLessThan(2_400);
  });
});
