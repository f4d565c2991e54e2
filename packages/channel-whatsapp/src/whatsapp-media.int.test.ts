import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ScriptedCore, startScriptedCore } from '@nexus/core/testing';
import { makeOggOpusVoiceNote, makePdf, makePng } from '@nexus/testkit/media';
import {
  createFakeWhatsAppSocketFactory,
  type FakeWhatsAppSocket,
  startFakeWhatsAppMedia,
  TEST_BOT_USER,
} from '@nexus/testkit/whatsapp';
import { normalizeMessageContent, type WAMessage } from '@whiskeysockets/baileys';
import { afterEach, describe, expect, it } from 'vitest';
import { createWhatsAppHarness } from './testing/whatsapp-harness.ts';

const ALICE = '310000000002@lid';

let harness: ReturnType<typeof createWhatsAppHarness> | undefined;
let scripted: ScriptedCore | undefined;
let media: Awaited<ReturnType<typeof startFakeWhatsAppMedia>> | undefined;

let internal: Server | undefined;

async function start(
  options: Parameters<typeof startScriptedCore>[0],
  resolve?: (hostname: string) => Promise<Array<{ address: string; family: number }>>,
) {
  harness = createWhatsAppHarness();
  scripted = await startScriptedCore(options);
  media = await startFakeWhatsAppMedia();
  const factory = createFakeWhatsAppSocketFactory({ user: { ...TEST_BOT_USER } });
  // WhatsApp's CDN is the stand-in, configured by origin as an operator would; nothing else is trusted.
  const channel = harness.channel(factory, {
    mediaDownload: { configuredOrigins: [media.origin], ...(resolve ? { resolve } : {}) },
  });
  scripted.core.registerChannel(channel);
  await channel.start({ sink: scripted.core.intake });
  const socket = await factory.socket(0);
  socket.open();
  return { scripted, media, socket, channel };
}

afterEach(async () => {
  await scripted?.core.shutdown({ deadlineMs: 2000 });
  await harness?.cleanup();
  await scripted?.model.close();
  await media?.close();
  internal?.closeAllConnections();
  await new Promise((resolve) => (internal ? internal.close(resolve) : resolve(undefined)));
  harness = scripted = media = internal = undefined;
});

async function replyText(socket: FakeWhatsAppSocket, index: number): Promise<string> {
  const started = Date.now();
  while (socket.sent.length <= index) {
    if (Date.now() - started > 10_000) throw new Error(`only ${socket.sent.length} sent`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const content = normalizeMessageContent((socket.sent[index]?.message as WAMessage | undefined)?.message);
  return content?.conversation ?? content?.extendedTextMessage?.text ?? '';
}

describe('WhatsApp media through core', () => {
  it('downloads and decrypts a photo for a vision model', async () => {
    const { scripted, media, socket } = await start({ media: { vision: true } });
    const message = await media.buildMediaMessage({
      from: ALICE,
      kind: 'image',
      bytes: makePng(),
      mimetype: 'image/jpeg',
      caption: 'what is this?',
    });
    socket.receive([message]);
    await replyText(socket, 0);
    const body = JSON.stringify(scripted.model.chatRequests()[0]?.body);
    expect(body).toContain('data:image/png;base64,');
    expect(body).toContain('what is this?');
  });

  it('transcribes a PTT voice note', async () => {
    const { scripted, media, socket } = await start({ media: { transcribe: true } });
    scripted.model.setTranscript('call mum at six');
    const message = await media.buildMediaMessage({
      from: ALICE,
      kind: 'audio',
      ptt: true,
      bytes: makeOggOpusVoiceNote(),
      mimetype: 'audio/ogg; codecs=opus',
    });
    socket.receive([message]);
    expect(await replyText(socket, 0)).toContain('I heard: “call mum at six”');
    expect(scripted.lastUserText(0)).toBe('call mum at six');
    expect(scripted.model.transcriptionRequests()[0]?.transcription?.fileHead.startsWith('4f676753')).toBe(
      true,
    );
  });

  it('reads a PDF document, and refuses a photo to a vision-less model', async () => {
    const { scripted, media, socket } = await start({ media: { vision: false } });
    socket.receive([
      await media.buildMediaMessage({
        from: ALICE,
        kind: 'document',
        bytes: makePdf(['Flight LH 404 leaves at 09:15.']),
        mimetype: 'application/pdf',
        fileName: 'ticket.pdf',
      }),
    ]);
    await replyText(socket, 0);
    expect(JSON.stringify(scripted.model.chatRequests()[0]?.body)).toContain(
      'Flight LH 404 leaves at 09:15.',
    );
    socket.receive([
      await media.buildMediaMessage({ from: ALICE, kind: 'image', bytes: makePng(), mimetype: 'image/jpeg' }),
    ]);
    expect(await replyText(socket, 1)).toMatch(/cannot see images/);
  });

  it('refuses media over the size cap and answers the next message', async () => {
    const { media, socket } = await start({ media: { vision: true, maxBytes: 64 } });
    socket.receive([
      await media.buildMediaMessage({
        from: ALICE,
        kind: 'image',
        bytes: makePng(64, 64),
        mimetype: 'image/png',
      }),
    ]);
    expect(await replyText(socket, 0)).toMatch(/larger than/);
  });

  it('refuses a message whose media URL names a loopback service, never connecting to it, and answers the next message', async () => {
    const hits: string[] = [];
    internal = createServer((request, response) => {
      hits.push(request.url ?? '');
      response.end('internal admin page');
    });
    await new Promise<void>((resolve) => internal?.listen(0, '127.0.0.1', resolve));
    const loopback = `http://127.0.0.1:${(internal.address() as AddressInfo).port}`;
    const { media, socket } = await start({ media: { vision: true } });
    const build = (options: { url: string; directPath?: string }) =>
      media.buildMediaMessage({
        from: ALICE,
        kind: 'image',
        bytes: makePng(),
        mimetype: 'image/png',
        ...options,
      });
    socket.receive([await build({ url: `${loopback}/admin` })]);
    expect(await replyText(socket, 0)).toBe('I could not fetch your image.');
    // Baileys takes the host of `url` for a `directPath`: the same loopback service, over https.
    socket.receive([await build({ url: `${loopback}/x`, directPath: '/v/t62.7118-24/admin' })]);
    expect(await replyText(socket, 1)).toBe('I could not fetch your image.');
    expect(hits).toEqual([]);
    socket.receive([
      await media.buildMediaMessage({ from: ALICE, kind: 'image', bytes: makePng(), mimetype: 'image/png' }),
    ]);
    await replyText(socket, 2);
    expect(media.requests).toHaveLength(1);
    expect(JSON.stringify(scripted?.model.chatRequests()[0]?.body)).toContain('data:image/png;base64,');
  });

  it("refuses WhatsApp's own host name when it resolves to a loopback address (DNS rebinding)", async () => {
    const asked: string[] = [];
    const { media, socket } = await start({ media: { vision: true } }, async (hostname) => {
      asked.push(hostname);
      return [{ address: '127.0.0.1', family: 4 }];
    });
    socket.receive([
      await media.buildMediaMessage({
        from: ALICE,
        kind: 'image',
        bytes: makePng(),
        mimetype: 'image/png',
        url: 'https://mmg.whatsapp.net/v/t62.7118-24/rebound.enc',
      }),
    ]);
    expect(await replyText(socket, 0)).toBe('I could not fetch your image.');
    expect(asked).toEqual(['mmg.whatsapp.net']);
    expect(media.requests).toEqual([]);
  });
});
