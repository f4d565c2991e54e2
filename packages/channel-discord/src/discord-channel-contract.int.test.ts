import type { MediaKind } from '@nexus/protocol';
import { describeChannelContract } from '@nexus/testkit/channel';
import {
  type FakeAttachment,
  type FakeStickerItem,
  type InjectedMessage,
  startFakeDiscord,
} from '@nexus/testkit/discord';
import { createTestChannel } from './testing/discord-harness.ts';

/** One file of `kind` as Discord attaches it: the content type decides, a voice message is flagged. */
function mediaOf(kind: MediaKind): { attachments?: FakeAttachment[]; stickers?: FakeStickerItem[] } {
  switch (kind) {
    case 'image':
      return { attachments: [{ filename: 'photo.png', contentType: 'image/png' }] };
    case 'document':
      return { attachments: [{ filename: 'notes.pdf', contentType: 'application/pdf' }] };
    case 'voice':
      return { attachments: [{ filename: 'voice-message.ogg', contentType: 'audio/ogg', voice: true }] };
    case 'audio':
      return { attachments: [{ filename: 'song.mp3', contentType: 'audio/mpeg' }] };
    case 'video':
      return { attachments: [{ filename: 'clip.mp4', contentType: 'video/mp4' }] };
    case 'sticker':
      return { stickers: [{ name: 'thumbs up' }] };
    default:
      throw new Error(`Discord has no ${kind} attachments`);
  }
}

describeChannelContract({
  name: 'discord',
  async start(sink) {
    const fake = await startFakeDiscord();
    const channel = createTestChannel(fake);
    await channel.start({ sink });
    return {
      channel,
      async send(message) {
        const media = message.media ? mediaOf(message.media) : {};
        const injected = message.group
          ? fake.injectGuildMessage({
              content: message.group.mentioned ? `<@${fake.bot.id}> ${message.text}` : message.text,
              ...media,
            })
          : fake.injectDirectMessage({ content: message.text, ...media });
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
      files: (conversationId) =>
        fake.sentMessages
          .filter((sent) => sent.channelId === conversationId && !sent.deleted)
          .reduce((count, sent) => count + (sent.files?.length ?? 0), 0),
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
