import type { MediaKind } from '@nexus/protocol';
import { describeChannelContract } from '@nexus/testkit/channel';
import {
  type FakeTelegram,
  type PushedMessage,
  type PushMessageOptions,
  startFakeTelegram,
} from '@nexus/testkit/telegram';
import { createTelegramChannel } from './telegram-channel.ts';
import { createMemoryUpdateStore } from './update-store.ts';

const privateChat = { id: 1001, type: 'private', firstName: 'Ada' } as const;
const group = { id: -100200, type: 'supergroup', title: 'Team' } as const;
const member = { id: 77, is_bot: false, first_name: 'Grace' };

/** The part of a pushed message that carries one file of `kind`, as Telegram's own types. */
function mediaPush(fake: FakeTelegram, kind: MediaKind): Partial<PushMessageOptions> {
  const file = fake.addFile({ content: new Uint8Array(256).fill(7) });
  switch (kind) {
    case 'image':
      return { photo: file };
    case 'document':
      return { document: { file, fileName: 'notes.pdf', mimeType: 'application/pdf' } };
    case 'voice':
      return { voice: { file } };
    case 'audio':
      return { audio: { file, fileName: 'song.mp3' } };
    case 'video':
      return { video: { file } };
    case 'sticker':
      return { sticker: { file } };
    default:
      throw new Error(`Telegram has no ${kind} messages`);
  }
}

describeChannelContract({
  name: 'telegram',
  async start(sink) {
    const fake = await startFakeTelegram();
    // The same test-speed settings as testing/telegram-harness.ts.
    const channel = createTelegramChannel({
      token: fake.token,
      apiRoot: fake.apiRoot,
      updateStore: createMemoryUpdateStore(),
      pollingTimeoutSeconds: 1,
      pollingStallMs: 1_500,
      streamEditIntervalMs: 50,
      typingIntervalMs: 1_000,
      random: () => 0,
    });
    await channel.start({ sink });
    return {
      channel,
      async send(message) {
        const text = message.group?.mentioned ? `@${fake.botInfo.username} ${message.text}` : message.text;
        const where = message.group ? { chat: group, from: member } : { chat: privateChat };
        return fake.pushMessage(
          message.media ? { ...where, caption: text, ...mediaPush(fake, message.media) } : { ...where, text },
        );
      },
      async redeliver(handle) {
        fake.replayUpdate((handle as PushedMessage).updateId);
      },
      async edit(handle, text) {
        const { message } = handle as PushedMessage;
        return fake.editMessage({ chatId: message.chat.id, messageId: message.message_id, text });
      },
      received: (conversationId) => fake.botMessages(Number(conversationId)).map((sent) => sent.text),
      files: (conversationId) =>
        fake.botMessages(Number(conversationId)).filter((sent) => sent.media !== undefined).length,
      edits: () => fake.botMessages().reduce((count, sent) => count + sent.edits, 0),
      typing: () => fake.calls('sendChatAction').length,
      async dropConnection() {
        fake.failNext('getUpdates', { kind: 'drop_connection' });
      },
      refuseSends(conversationId, refuse) {
        if (refuse) fake.blockChat(Number(conversationId));
        else fake.unblockChat(Number(conversationId));
      },
      async close() {
        await channel.stop();
        await fake.close();
      },
    };
  },
});
