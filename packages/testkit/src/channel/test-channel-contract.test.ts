import { describeChannelContract } from './channel-contract.ts';
import { createTestChannel } from './create-test-channel.ts';

// The synthetic channel has no connection to drop and no platform to refuse a send, so those
// two cases skip; every other case runs against it as against a platform channel.
describeChannelContract({
  name: 'test channel',
  async start(sink) {
    const channel = createTestChannel({ groupMessages: 'mentioned' });
    await channel.start({ sink });
    const ids = new Map<string, string>();
    return {
      channel,
      async send(message) {
        const id = `message-${ids.size + 1}`;
        ids.set(id, message.text);
        await channel.send({
          id,
          text: message.text,
          ...(message.media ? { attachments: [{ kind: message.media, platformFileId: `file-${id}` }] } : {}),
          ...(message.group ? { kind: 'group', mentionsAssistant: message.group.mentioned } : {}),
        });
        return id;
      },
      async redeliver(handle) {
        const id = handle as string;
        await channel.send({ id, text: ids.get(id) ?? '' });
      },
      received: (conversationId) => channel.replies(conversationId),
      files: (conversationId) =>
        channel.events(conversationId).filter((event) => event.type === 'reply.media').length,
      edits: () => 0,
      typing: () =>
        channel
          .intents()
          .reduce(
            (count, intent) =>
              count +
              channel.events(intent.conversation.id).filter((event) => event.type === 'typing').length,
            0,
          ),
      close: () => channel.stop(),
    };
  },
});
