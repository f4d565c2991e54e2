import { intentSchema } from '@nexus/protocol';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MEDIA_SETTINGS } from '../media/media-settings.ts';
import { createRecordingChannel, createRecordingLogger, testIntent } from '../testing/recording-channel.ts';
import { readAttachments } from './read-attachments.ts';

const { adapter } = createRecordingChannel();
const abortSignal = new AbortController().signal;
const sticker = { kind: 'sticker' as const, platformFileId: 'file-1', sizeBytes: 1000 };

describe('readAttachments', () => {
  it('passes a message without attachments through untouched', async () => {
    const intent = intentSchema.parse(testIntent({ id: 'm1', text: 'hello' }));
    const read = await readAttachments({
      intent,
      adapter,
      settings: undefined,
      abortSignal,
      logger: createRecordingLogger(),
    });
    expect(read.intent).toBe(intent);
    expect(read).not.toHaveProperty('media');
  });

  it('names an attachment it cannot use; with no words beside it, the problems are the whole answer', async () => {
    const intent = intentSchema.parse({ ...testIntent({ id: 'm2', text: '' }), attachments: [sticker] });
    const logger = createRecordingLogger();
    const read = await readAttachments({
      intent,
      adapter,
      settings: DEFAULT_MEDIA_SETTINGS,
      abortSignal,
      logger,
    });
    expect(read.media?.problems).toHaveLength(1);
    expect(read.media?.problemsOnly).toBe(true);
    expect(read.intent.text).toBe('');
  });

  it('keeps the person’s words as the turn’s text when an attachment beside them is unusable', async () => {
    const intent = intentSchema.parse({
      ...testIntent({ id: 'm3', text: 'what is this?' }),
      attachments: [sticker],
    });
    const read = await readAttachments({
      intent,
      adapter,
      settings: undefined,
      abortSignal,
      logger: createRecordingLogger(),
    });
    expect(read.media?.problemsOnly).toBe(false);
    expect(read.intent).toEqual({ ...intent, text: 'what is this?' });
    expect(read.intent).not.toBe(intent);
  });

  it('refuses a kind the channel does not declare (capabilities.mediaIn) without fetching it', async () => {
    let fetched = 0;
    const voiceOnly = {
      ...adapter,
      name: 'voice-only',
      capabilities: { ...adapter.capabilities, mediaIn: ['voice' as const] },
      async fetchAttachment(): Promise<never> {
        fetched += 1;
        throw new Error('a refused kind must not be downloaded');
      },
    };
    const document = { kind: 'document' as const, platformFileId: 'file-2', sizeBytes: 1000 };
    const intent = intentSchema.parse({ ...testIntent({ id: 'm4', text: '' }), attachments: [document] });
    const read = await readAttachments({
      intent,
      adapter: voiceOnly,
      settings: DEFAULT_MEDIA_SETTINGS,
      abortSignal,
      logger: createRecordingLogger(),
    });
    expect(fetched).toBe(0);
    expect(read.media?.problems).toEqual([
      'I cannot read your file: voice-only does not take document files.',
    ]);
    expect(read.media?.problemsOnly).toBe(true);
  });
});
