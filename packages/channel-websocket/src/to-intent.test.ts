import { intentSchema } from '@nexus/protocol';
import { describe, expect, it } from 'vitest';
import { buildWebIntent } from './to-intent.ts';

describe('buildWebIntent', () => {
  it('builds a valid Intent whose id repeats for a resent message', () => {
    const options = {
      channelName: 'web',
      clientId: 'browser-7',
      frame: { type: 'message' as const, clientMessageId: 'm-1', conversationId: 'conv', text: 'hi' },
      receivedAt: new Date('2026-03-04T05:06:07.000Z'),
    };
    const intent = buildWebIntent(options);
    expect(intentSchema.parse(intent)).toMatchObject({
      id: 'web:browser-7:m-1',
      userId: 'web:browser-7',
      sender: { platformId: 'browser-7' },
      receivedAt: '2026-03-04T05:06:07.000Z',
    });
    expect(intent.sender).not.toHaveProperty('displayName');
    expect(buildWebIntent(options).id).toBe(intent.id);
  });
});
