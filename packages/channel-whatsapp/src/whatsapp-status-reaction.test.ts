import { conversationRefOf, intentSchema, type ReplyEvent } from '@nexus/protocol';
import {
  buildDirectMessage,
  buildGroupMessage,
  createFakeWhatsAppSocketFactory,
  TEST_BOT_LID,
  TEST_BOT_USER,
} from '@nexus/testkit/whatsapp';
import { normalizeMessageContent } from '@whiskeysockets/baileys';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RESTORING_REACTION } from './status-reaction.ts';
import { createRecordingSink, createWhatsAppHarness, replyEvents } from './testing/whatsapp-harness.ts';

const ALICE_LID = '310000000002@lid';
const GROUP = '120363000000000001@g.us';
const STATUS: ReplyEvent = { type: 'status', text: 'Restoring your preferences…' };
const reply = (text: string): ReplyEvent[] => [
  { type: 'reply.start', replyId: 'r' },
  { type: 'reply.delta', replyId: 'r', text },
  { type: 'reply.end', replyId: 'r', text },
];

let harness: ReturnType<typeof createWhatsAppHarness>;
beforeEach(() => {
  harness = createWhatsAppHarness();
});
afterEach(async () => {
  await harness.cleanup();
});

/** What the bot sent, as WhatsApp would show it: a text, or a reaction on a message. */
function shown(sent: { message: { message?: unknown } }) {
  const content = normalizeMessageContent(sent.message.message as never);
  if (content?.reactionMessage)
    return { reaction: content.reactionMessage.text, on: content.reactionMessage.key?.id };
  return { text: content?.conversation ?? content?.extendedTextMessage?.text };
}

async function channelWithMessage(message: ReturnType<typeof buildDirectMessage>) {
  const factory = createFakeWhatsAppSocketFactory({ user: { ...TEST_BOT_USER } });
  const channel = harness.channel(factory, { groupMessages: 'all' });
  const { sink, intents } = createRecordingSink();
  await channel.start({ sink });
  const socket = await factory.socket(0);
  socket.open();
  socket.receive([message]);
  await channel.idle();
  return { channel, socket, conversation: conversationRefOf(intentSchema.parse(intents[0])) };
}

describe('a slow memory step on WhatsApp', () => {
  it('is a reaction on the person’s message while it lasts, taken off once the answer is sent', async () => {
    const incoming = buildDirectMessage({ from: ALICE_LID, text: 'what do I like?' });
    const { channel, socket, conversation } = await channelWithMessage(incoming);
    await channel.deliver({ conversation, events: replyEvents(STATUS, ...reply('Green tea.')) });
    expect(socket.sent.map(shown)).toEqual([
      { reaction: RESTORING_REACTION, on: incoming.key.id },
      { text: 'Green tea.' },
      { reaction: '', on: incoming.key.id },
    ]);
    expect(socket.sent.every((sent) => sent.jid === ALICE_LID)).toBe(true);
  });

  it('sends nothing extra when memory was quick, and takes the reaction off a failed turn too', async () => {
    const incoming = buildDirectMessage({ from: ALICE_LID, text: 'hi' });
    const { channel, socket, conversation } = await channelWithMessage(incoming);
    await channel.deliver({ conversation, events: replyEvents(...reply('Hello.')) });
    expect(socket.sent.map(shown)).toEqual([{ text: 'Hello.' }]);

    await channel.deliver({
      conversation,
      events: replyEvents(STATUS, { type: 'error', code: 'internal', message: 'failed', retryable: false }),
    });
    expect(socket.sent.slice(1).map(shown)).toEqual([
      { reaction: RESTORING_REACTION, on: incoming.key.id },
      { text: expect.stringContaining('Sorry') },
      { reaction: '', on: incoming.key.id },
    ]);
  });

  it('reacts to the member’s message in a group', async () => {
    const question = buildGroupMessage({
      group: GROUP,
      participant: ALICE_LID,
      text: '@210000000001 my usual?',
      mentionedJids: [TEST_BOT_LID],
    });
    const { channel, socket, conversation } = await channelWithMessage(question);
    await channel.deliver({ conversation, events: replyEvents(STATUS, ...reply('The usual.')) });
    const reaction = normalizeMessageContent(socket.sent[0]?.message.message)?.reactionMessage;
    expect(reaction?.text).toBe(RESTORING_REACTION);
    expect(reaction?.key).toMatchObject({ remoteJid: GROUP, id: question.key.id, participant: ALICE_LID });
    expect(socket.sent.map(shown).at(-1)).toEqual({ reaction: '', on: question.key.id });
  });
});
