import { type ScriptedCore, startScriptedCore } from '@nexus/core/testing';
import { makeOggOpusVoiceNote, makePdf, makePng } from '@nexus/testkit/media';
import { type FakeTelegram, startFakeTelegram } from '@nexus/testkit/telegram';
import { afterEach, describe, expect, it } from 'vitest';
import { createTelegramChannel, type TelegramChannel } from './telegram-channel.ts';
import { createMemoryUpdateStore } from './update-store.ts';

const privateChat = { id: 5101, type: 'private', firstName: 'Ada' } as const;

let fake: FakeTelegram | undefined;
let scripted: ScriptedCore | undefined;
let channel: TelegramChannel | undefined;

async function start(media: Parameters<typeof startScriptedCore>[0]) {
  fake = await startFakeTelegram();
  scripted = await startScriptedCore(media);
  channel = createTelegramChannel({
    token: fake.token,
    apiRoot: fake.apiRoot,
    updateStore: createMemoryUpdateStore(),
    pollingTimeoutSeconds: 1,
    streamEditIntervalMs: 50,
  });
  scripted.core.registerChannel(channel);
  await channel.start({ sink: (intent) => scripted!.core.intake(intent) });
  return { fake, scripted };
}

/** The last bot message's text once it stopped changing (streamed replies are edited in place). */
async function replyNumber(telegram: FakeTelegram, index: number): Promise<string> {
  const message = await telegram.waitFor(() => telegram.botMessages(privateChat.id)[index]);
  await scripted?.core.whenIdle();
  return telegram.botMessages(privateChat.id)[index]?.text ?? message.text ?? '';
}

afterEach(async () => {
  await scripted?.core.shutdown({ deadlineMs: 2_000 });
  await channel?.stop();
  await fake?.close();
  await scripted?.model.close();
  fake = scripted = channel = undefined;
});

describe('Telegram media', () => {
  it('sends a photo to a vision model as an image part', async () => {
    const { fake, scripted } = await start({ media: { vision: true } });
    const photo = fake.addFile({ content: makePng(), filePath: 'photos/file_1.jpg' });
    fake.pushMessage({ chat: privateChat, photo, caption: 'what is in this photo?' });
    await replyNumber(fake, 0);
    const content = JSON.stringify(scripted.model.chatRequests()[0]?.body);
    expect(content).toContain('data:image/png;base64,');
    expect(content).toContain('what is in this photo?');
  });

  it('tells a person the model cannot see images when it has no vision', async () => {
    const { fake, scripted } = await start({ media: { vision: false } });
    const photo = fake.addFile({ content: makePng(), filePath: 'photos/file_1.jpg' });
    fake.pushMessage({ chat: privateChat, photo });
    expect(await replyNumber(fake, 0)).toMatch(/cannot see images/);
    expect(scripted.model.chatRequests()).toHaveLength(0);
  });

  it('transcribes an OGG/Opus voice note and answers the transcript', async () => {
    const { fake, scripted } = await start({ media: { transcribe: true } });
    scripted.model.setTranscript('what is the capital of France');
    const voice = fake.addFile({ content: makeOggOpusVoiceNote(2), filePath: 'voice/file_2.oga' });
    fake.pushMessage({ chat: privateChat, voice: { file: voice } });
    const reply = await replyNumber(fake, 0);
    expect(reply).toContain('I heard: “what is the capital of France”');
    expect(reply).toContain('Echo: what is the capital of France');
    expect(scripted.model.transcriptionRequests()[0]?.transcription?.fileHead.startsWith('4f676753')).toBe(
      true,
    );
  });

  it('passes a PDF document text to the model', async () => {
    const { fake, scripted } = await start({});
    const pdf = fake.addFile({
      content: makePdf(['Rent is due on the 3rd.']),
      filePath: 'documents/lease.pdf',
    });
    fake.pushMessage({
      chat: privateChat,
      document: { file: pdf, fileName: 'lease.pdf', mimeType: 'application/pdf' },
    });
    await replyNumber(fake, 0);
    expect(JSON.stringify(scripted.model.chatRequests()[0]?.body)).toContain('Rent is due on the 3rd.');
  });

  it('refuses an oversized file clearly and answers the next message', async () => {
    const { fake } = await start({ media: { vision: true, maxBytes: 1024 } });
    const photo = fake.addFile({ content: new Uint8Array(4096), filePath: 'photos/big.jpg' });
    fake.pushMessage({ chat: privateChat, photo });
    expect(await replyNumber(fake, 0)).toMatch(/larger than/);
    fake.pushMessage({ chat: privateChat, text: 'hello again' });
    expect(await replyNumber(fake, 1)).toBe('Echo: hello again');
  });
});
