import type { ChannelAdapter, ConversationRef, ReplyEvent } from '@nexus/protocol';
import { TEST_CHANNEL_CAPABILITIES } from '@nexus/testkit/channel';
import { describe, expect, it } from 'vitest';
import { createConversationNotifier } from './conversation-notifier.ts';

const conversation: ConversationRef = {
  channel: 'chat',
  conversationId: 'dm:ann',
  kind: 'direct',
  intentId: 'i-1',
  userId: 'chat:ann',
  senderPlatformId: 'ann',
};

function adapter(extra: Partial<ChannelAdapter> & Record<string, unknown> = {}) {
  const received: ReplyEvent[][] = [];
  const channel: ChannelAdapter = {
    name: 'chat',
    capabilities: TEST_CHANNEL_CAPABILITIES,
    async start() {},
    async stop() {},
    health: () => ({ status: 'up' }),
    async deliver({ events }) {
      const list: ReplyEvent[] = [];
      for await (const event of events) list.push(event);
      received.push(list);
    },
    ...extra,
  };
  return { channel, received };
}

describe('conversation notifier', () => {
  it('delivers one finished message through the channel', async () => {
    const notifier = createConversationNotifier();
    const { channel, received } = adapter();
    notifier.add(channel);
    await notifier.notify(conversation, 'Someone entered your link code.');
    expect(received).toHaveLength(1);
    expect(received[0]?.map((event) => event.type)).toEqual(['reply.start', 'reply.end']);
    expect(received[0]?.[1]).toMatchObject({ text: 'Someone entered your link code.' });
  });

  it('fails for a channel that is not running, a deliver that throws, or a reported non-delivery', async () => {
    const notifier = createConversationNotifier();
    await expect(notifier.notify(conversation, 'x')).rejects.toMatchObject({ code: 'channel_unavailable' });
    notifier.add(
      adapter({
        deliver: async () => {
          throw new Error('socket closed');
        },
      }).channel,
    );
    await expect(notifier.notify(conversation, 'x')).rejects.toThrow(/socket closed/);
    notifier.add(adapter({ deliverWithOutcome: async () => ({ status: 'blocked' }) }).channel);
    await expect(notifier.notify(conversation, 'x')).rejects.toThrow(
      /could not deliver the message \(blocked\)/,
    );
  });
});
