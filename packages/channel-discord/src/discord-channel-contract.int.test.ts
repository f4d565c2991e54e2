import { describeChannelContract } from '@nexus/testkit/channel';
import { type InjectedMessage, startFakeDiscord } from '@nexus/testkit/discord';
import { createTestChannel } from './testing/discord-harness.ts';

describeChannelContract({
  name: 'discord',
  async start(sink) {
    const fake = await startFakeDiscord();
    const channel = createTestChannel(fake);
    await channel.start({ sink });
    return {
      channel,
      async send(message) {
        const injected = message.group
          ? fake.injectGuildMessage({
              content: message.group.mentioned ? `<@${fake.bot.id}> ${message.text}` : message.text,
            })
          : fake.injectDirectMessage({ content: message.text });
        return injected;
      },
      async redeliver(handle) {
        fake.replay((handle as InjectedMessage).seq);
      },
      async edit(handle, text) {
        return fake.editMessage({ id: (handle as InjectedMessage).id, content: text });
      },
      async remove(handle) {
        fake.deleteMessage({ id: (handle as InjectedMessage).id });
      },
      received: (conversationId) =>
        fake.sentMessages
          .filter((sent) => sent.channelId === conversationId && !sent.deleted)
          .map((sent) => sent.content),
      edits: () => fake.sentMessages.reduce((count, sent) => count + sent.history.length - 1, 0),
      typing: () =>
        fake.requests.filter((request) => request.method === 'POST' && request.path.endsWith('/typing'))
          .length,
      async dropConnection() {
        fake.dropConnection();
      },
      refuseSends(conversationId, refuse) {
        fake.setSendsRefused(conversationId, refuse);
      },
      async close() {
        await channel.stop();
        await fake.close();
      },
    };
  },
});
