import { intentSchema } from '@nexus/protocol';
import { describe, expect, it } from 'vitest';
import { webMessageToIntent } from './to-intent.ts';

describe('webMessageToIntent', () => {
  it('builds a valid Intent whose id repeats for a resent message', () => {
    const options = {
      channelName: 'web',
      clientId: 'browser-7',
      frame: { type: 'message' as const, clientMessageId: 'm-1', conversationId: 'conv', text: 'hi' },
      receivedAt: new Date('2026-03-04T05:06:07.000Z'),
    };
    const intent = webMessageToIntent(options);
    expect(intentSchema.parse(intent)).toMatchObject({
      id: 'web:browser-7:m-1',
      userId: 'web:browser-7',
      sender: { platformId: 'browser-7' },
      receivedAt: '2026-03-04T05:06:07.000Z',
    });
    expect(intent.sender).not.toHaveProperty('displayName');
    expect(webMessageToIntent(options).id).toBe(intent.id);
  });
});

describe('webMessageToIntent for changes', () => {
  const receivedAt = new Date('2026-03-04T05:06:07.000Z');
  it('turns an edit into a revision of the original intent, with its own id', () => {
    const intent = webMessageToIntent({
      channelName: 'web',
      clientId: 'b7',
      frame: {
        type: 'edit',
        clientMessageId: 'e-1',
        conversationId: 'c',
        targetClientMessageId: 'm-1',
        text: 'new',
      },
      receivedAt,
    });
    expect(intentSchema.parse(intent)).toMatchObject({
      id: 'web:b7:e-1',
      text: 'new',
      revises: { kind: 'edit', targetIntentId: 'web:b7:m-1' },
    });
  });

  it('turns a delete into an empty revision whose id repeats for the same target', () => {
    const intent = webMessageToIntent({
      channelName: 'web',
      clientId: 'b7',
      frame: { type: 'delete', clientMessageId: 'd-1', conversationId: 'c', targetClientMessageId: 'm-1' },
      receivedAt,
    });
    expect(intentSchema.parse(intent)).toMatchObject({
      id: 'web:b7:m-1:delete',
      text: '',
      revises: { kind: 'delete', targetIntentId: 'web:b7:m-1' },
    });
  });

  it('carries uploads as attachments core can fetch back through the channel', () => {
    const intent = webMessageToIntent({
      channelName: 'web',
      clientId: 'b7',
      frame: { type: 'message', clientMessageId: 'm-2', conversationId: 'c', text: '' },
      uploads: [
        {
          upload: {
            uploadId: 'u'.repeat(22),
            clientId: 'b7',
            kind: 'audio',
            mimeType: 'audio/webm',
            sizeBytes: 9,
          },
          voice: true,
        },
      ],
      receivedAt,
    });
    expect(intentSchema.parse(intent).attachments).toEqual([
      { kind: 'voice', platformFileId: `b7/${'u'.repeat(22)}`, mimeType: 'audio/webm', sizeBytes: 9 },
    ]);
  });
});

describe('webMessageToIntent for another answer and a choice of version', () => {
  const receivedAt = new Date('2026-03-04T05:06:07.000Z');
  it('turns regenerate into a regenerate revision carrying the message text, under its own id', () => {
    const intent = webMessageToIntent({
      channelName: 'web',
      clientId: 'b7',
      frame: {
        type: 'regenerate',
        clientMessageId: 'g-1',
        conversationId: 'c',
        targetClientMessageId: 'm-1',
        text: 'the question',
      },
      receivedAt,
    });
    expect(intentSchema.parse(intent)).toMatchObject({
      id: 'web:b7:g-1',
      text: 'the question',
      revises: { kind: 'regenerate', targetIntentId: 'web:b7:m-1' },
    });
  });

  it('turns choose into a choose revision naming the reply, with no text', () => {
    const intent = webMessageToIntent({
      channelName: 'web',
      clientId: 'b7',
      frame: {
        type: 'choose',
        clientMessageId: 'v-1',
        conversationId: 'c',
        targetClientMessageId: 'm-1',
        replyId: 'r-abc',
      },
      receivedAt,
    });
    expect(intentSchema.parse(intent)).toMatchObject({
      id: 'web:b7:v-1',
      text: '',
      revises: { kind: 'choose', targetIntentId: 'web:b7:m-1', replyId: 'r-abc' },
    });
  });
});
