import { type ScriptedCore, startScriptedCore } from '@nexus/core/testing';
import type { ChannelAdapter } from '@nexus/protocol';
import { type FakeDiscord, startFakeDiscord } from '@nexus/testkit/discord';
import { makeOggOpusVoiceNote, makePdf, makePng } from '@nexus/testkit/media';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestChannel } from './testing/discord-harness.ts';

let fake: FakeDiscord | undefined;
let scripted: ScriptedCore | undefined;
let channel: ChannelAdapter | undefined;

async function start(media: Parameters<typeof startScriptedCore>[0]) {
  fake = await startFakeDiscord();
  scripted = await startScriptedCore(media);
  channel = createTestChannel(fake);
  scripted.core.registerChannel(channel);
  await channel.start({ sink: (intent) => scripted!.core.intake(intent) });
  return { fake, scripted };
}

afterEach(async () => {
  await scripted?.core.shutdown({ deadlineMs: 2_000 });
  await channel?.stop();
  await fake?.close();
  await scripted?.model.close();
  fake = scripted = channel = undefined;
});

describe('Discord media through the core', () => {
  it('downloads an image attachment from the CDN and sends it to a vision model as an image part', async () => {
    const { fake, scripted } = await start({ media: { vision: true } });
    const png = makePng();
    fake.injectDirectMessage({
      content: 'what is in this picture?',
      attachments: [{ filename: 'picture.png', contentType: 'image/png', content: png }],
    });
    await fake.waitFor(() => fake.sentMessages[0]);
    await scripted.core.whenIdle();
    const request = JSON.stringify(scripted.model.chatRequests()[0]?.body);
    expect(request).toContain(`data:image/png;base64,${Buffer.from(png).toString('base64')}`);
    expect(request).toContain('what is in this picture?');
  });

  it('tells the person the model cannot see images when it has no vision, without a model call', async () => {
    const { fake, scripted } = await start({ media: { vision: false } });
    fake.injectDirectMessage({
      content: '',
      attachments: [{ filename: 'picture.png', contentType: 'image/png', content: makePng() }],
    });
    await fake.waitFor(() => fake.sentMessages[0]);
    await scripted.core.whenIdle();
    expect(fake.sentMessages.at(-1)?.content).toMatch(/cannot see images/);
    expect(scripted.model.chatRequests()).toHaveLength(0);
  });

  it('transcribes a voice message: the transcriber gets the Ogg/Opus bytes, the model the transcript', async () => {
    const { fake, scripted } = await start({ media: { transcribe: true } });
    scripted.model.setTranscript('book a table for four on friday');
    fake.injectDirectMessage({
      content: '',
      attachments: [
        {
          filename: 'voice-message.ogg',
          contentType: 'audio/ogg',
          content: makeOggOpusVoiceNote(),
          voice: true,
        },
      ],
    });
    await fake.waitFor(() => fake.sentMessages[0]);
    await scripted.core.whenIdle();
    expect(scripted.model.transcriptionRequests()[0]?.transcription?.fileHead.startsWith('4f676753')).toBe(
      true,
    );
    expect(scripted.lastUserText(0)).toBe('book a table for four on friday');
    expect(fake.sentMessages.map((message) => message.content).join('\n')).toContain(
      '🎤 I heard: “book a table for four on friday”',
    );
  });

  it('reads a PDF attachment and gives its text to the model as context', async () => {
    const { fake, scripted } = await start({});
    fake.injectDirectMessage({
      content: 'what does the contract say about notice?',
      attachments: [
        {
          filename: 'contract.pdf',
          contentType: 'application/pdf',
          content: makePdf(['Either party may end this contract with 30 days notice.']),
        },
      ],
    });
    await fake.waitFor(() => fake.sentMessages[0]);
    await scripted.core.whenIdle();
    const request = JSON.stringify(scripted.model.chatRequests()[0]?.body);
    expect(request).toContain('Attached document \\"contract.pdf\\"');
    expect(request).toContain('Either party may end this contract with 30 days notice.');
  });
});
