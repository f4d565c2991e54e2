import { Boom } from '@hapi/boom';
import { describeChannelContract } from '@nexus/testkit/channel';
import {
  buildDirectMediaMessage,
  buildDirectMessage,
  buildEditMessage,
  buildGroupMessage,
  buildRevokeMessage,
  createFakeWhatsAppSocketFactory,
  TEST_BOT_LID,
  TEST_BOT_USER,
} from '@nexus/testkit/whatsapp';
import { DisconnectReason, normalizeMessageContent, type WAMessage } from '@whiskeysockets/baileys';
import { createWhatsAppHarness } from './testing/whatsapp-harness.ts';

const ALICE_LID = '310000000002@lid';
const BOB_LID = '310000000003@lid';
const GROUP = '120363000000000001@g.us';

function textOf(message: WAMessage): string {
  const content = normalizeMessageContent(message.message);
  return content?.conversation ?? content?.extendedTextMessage?.text ?? '';
}

// The fake socket fails sends only by count, so a refusal cannot be lifted again: the
// refused-send case skips here (the reply sender's retry-after-reconnect is in its own tests).
describeChannelContract({
  name: 'whatsapp',
  async start(sink) {
    const harness = createWhatsAppHarness();
    const factory = createFakeWhatsAppSocketFactory({ user: { ...TEST_BOT_USER } });
    const channel = harness.channel(factory);
    await channel.start({ sink });
    (await factory.socket(0)).open();
    const current = () => factory.sockets.at(-1)!;
    return {
      channel,
      async send(message) {
        if (message.media && message.group) throw new Error('the contract sends media only directly');
        if (message.media === 'other') throw new Error('WhatsApp has no "other" media');
        const built = message.media
          ? buildDirectMediaMessage({ from: ALICE_LID, kind: message.media, caption: message.text })
          : message.group
            ? buildGroupMessage({
                group: GROUP,
                participant: BOB_LID,
                text: message.text,
                ...(message.group.mentioned ? { mentionedJids: [TEST_BOT_LID] } : {}),
              })
            : buildDirectMessage({ from: ALICE_LID, text: message.text });
        current().receive([built]);
        return built;
      },
      async redeliver(handle) {
        current().receive([handle as WAMessage]);
      },
      async edit(handle, text) {
        const edit = buildEditMessage({ original: handle as WAMessage, text });
        current().receive([edit]);
        return edit;
      },
      async remove(handle) {
        current().receive([buildRevokeMessage({ original: handle as WAMessage })]);
      },
      received: (conversationId) =>
        factory.sockets.flatMap((socket) =>
          socket.sent.filter((sent) => sent.jid === conversationId).map((sent) => textOf(sent.message)),
        ),
      files: (conversationId) =>
        factory.sockets.flatMap((socket) =>
          socket.sent.filter(
            (sent) =>
              sent.jid === conversationId &&
              ('image' in sent.content || 'audio' in sent.content || 'document' in sent.content),
          ),
        ).length,
      edits: () => 0,
      typing: () =>
        factory.sockets.reduce(
          (count, socket) =>
            count + socket.presenceUpdates.filter((update) => update.type === 'composing').length,
          0,
        ),
      async dropConnection() {
        const next = factory.sockets.length;
        current().close(new Boom('Connection Lost', { statusCode: DisconnectReason.connectionLost }));
        (await factory.socket(next)).open();
      },
      async close() {
        await harness.cleanup();
      },
    };
  },
});
