import { Boom } from '@hapi/boom';
import { conversationRefOf, intentSchema } from '@nexus/protocol';
import {
  buildDirectMessage,
  buildGroupMessage,
  createFakeWhatsAppSocketFactory,
  TEST_BOT_LID,
  TEST_BOT_PHONE_JID,
  TEST_BOT_USER,
} from '@nexus/testkit/whatsapp';
import { DisconnectReason, getContentType, normalizeMessageContent } from '@whiskeysockets/baileys';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createRecordingSink,
  createWhatsAppHarness,
  replyEvents,
  textReply,
} from './testing/whatsapp-harness.ts';

const ALICE_LID = '310000000002@lid';
const ALICE_PHONE = '15550000002@s.whatsapp.net';
const BOB_LID = '310000000003@lid';
const GROUP = '120363000000000001@g.us';

let harness: ReturnType<typeof createWhatsAppHarness>;
beforeEach(() => {
  harness = createWhatsAppHarness();
});
afterEach(async () => {
  await harness.cleanup();
});

function textOf(message: { message?: unknown }): string | undefined {
  const content = normalizeMessageContent(message.message as never);
  return content?.conversation ?? content?.extendedTextMessage?.text ?? undefined;
}

describe('WhatsApp channel on a fake socket', () => {
  it('answers a direct message: intent in, composing, rendered reply out, own echo ignored', async () => {
    const factory = createFakeWhatsAppSocketFactory({ user: { ...TEST_BOT_USER } });
    const channel = harness.channel(factory);
    const { sink, intents } = createRecordingSink();
    await channel.start({ sink });
    const socket = await factory.socket(0);
    socket.open();
    expect(channel.health()).toEqual({ status: 'up' });
    expect(channel.linkState()).toMatchObject({
      status: 'open',
      account: { phoneJid: TEST_BOT_PHONE_JID, lidJid: TEST_BOT_LID },
    });

    const incoming = buildDirectMessage({ from: ALICE_LID, fromAlt: ALICE_PHONE, text: 'hi **there**' });
    socket.receive([incoming]);
    await channel.idle();
    expect(intents).toHaveLength(1);
    const intent = intentSchema.parse(intents[0]);
    expect(intent).toMatchObject({ text: 'hi **there**', mentionsAssistant: true });

    await channel.deliver({ conversation: conversationRefOf(intent), events: textReply('**Hello** Alice') });
    expect(socket.sent).toHaveLength(1);
    expect(socket.sent[0]?.jid).toBe(ALICE_LID);
    expect(textOf(socket.sent[0]?.message ?? {})).toBe('*Hello* Alice');
    expect(socket.presenceUpdates[0]).toEqual({ type: 'composing', jid: ALICE_LID });
    expect(socket.presenceUpdates.at(-1)).toEqual({ type: 'paused', jid: ALICE_LID });

    // The socket echoes our own send back as a fromMe `append`; it must not become an intent.
    await new Promise((resolve) => setImmediate(resolve));
    await channel.idle();
    expect(intents).toHaveLength(1);
  });

  it('in a group: marks mentions by LID or phone JID, and quotes the question in the answer', async () => {
    const factory = createFakeWhatsAppSocketFactory({ user: { ...TEST_BOT_USER } });
    const channel = harness.channel(factory, { groupMessages: 'all' });
    const { sink, intents } = createRecordingSink();
    await channel.start({ sink });
    const socket = await factory.socket(0);
    socket.open();

    const chatter = buildGroupMessage({ group: GROUP, participant: BOB_LID, text: 'lunch?' });
    const byLid = buildGroupMessage({
      group: GROUP,
      participant: ALICE_LID,
      participantAlt: ALICE_PHONE,
      text: '@210000000001 weather?',
      mentionedJids: [TEST_BOT_LID],
    });
    const byPhone = buildGroupMessage({
      group: GROUP,
      participant: BOB_LID,
      text: '@15550000001 hi',
      mentionedJids: [TEST_BOT_PHONE_JID],
    });
    socket.receive([chatter, byLid, byPhone]);
    await channel.idle();
    expect(intents.map((intent) => [intent.sender.platformId, intent.mentionsAssistant])).toEqual([
      [BOB_LID, false],
      [ALICE_LID, true],
      [BOB_LID, true],
    ]);

    const question = intentSchema.parse(intents[1]);
    await channel.deliver({ conversation: conversationRefOf(question), events: textReply('Sunny.') });
    const sent = socket.sent[0];
    expect(sent?.jid).toBe(GROUP);
    expect(sent?.options?.quoted?.key.id).toBe(byLid.key.id);
    const content = normalizeMessageContent(sent?.message.message);
    const type = getContentType(content ?? undefined);
    expect(type).toBe('extendedTextMessage');
    expect(content?.extendedTextMessage?.contextInfo?.stanzaId).toBe(byLid.key.id);
  });

  it('drops group messages that do not address the assistant unless asked to forward them', async () => {
    const factory = createFakeWhatsAppSocketFactory({ user: { ...TEST_BOT_USER } });
    const channel = harness.channel(factory);
    const { sink, intents } = createRecordingSink();
    await channel.start({ sink });
    const socket = await factory.socket(0);
    socket.open();
    socket.receive([
      buildGroupMessage({ group: GROUP, participant: BOB_LID, text: 'lunch?' }),
      buildGroupMessage({
        group: GROUP,
        participant: ALICE_LID,
        text: '@15550000001 join us?',
        mentionedJids: [TEST_BOT_PHONE_JID],
      }),
    ]);
    await channel.idle();
    expect(intents.map((intent) => intent.text)).toEqual(['join us?']);
  });

  it('splits a long reply into ~4000-character messages, in order', async () => {
    const factory = createFakeWhatsAppSocketFactory({ user: { ...TEST_BOT_USER } });
    const channel = harness.channel(factory);
    const { sink, intents } = createRecordingSink();
    await channel.start({ sink });
    const socket = await factory.socket(0);
    socket.open();
    socket.receive([buildDirectMessage({ from: ALICE_LID, text: 'tell me a long story' })]);
    await channel.idle();

    const paragraphs = Array.from({ length: 30 }, (_, index) => `Paragraph ${index}. ${'word '.repeat(60)}`);
    const long = paragraphs.join('\n\n');
    const intent = intentSchema.parse(intents[0]);
    await channel.deliver({ conversation: conversationRefOf(intent), events: textReply(long) });
    const texts = socket.sent.map((entry) => textOf(entry.message) ?? '');
    expect(texts.length).toBeGreaterThanOrEqual(3);
    for (const text of texts) expect(text.length).toBeLessThanOrEqual(4000);
    expect(texts.join('\n\n').replace(/\s+/g, ' ').trim()).toBe(long.replace(/\s+/g, ' ').trim());
  });

  it('keeps sent messages so Baileys can answer retry receipts through getMessage', async () => {
    const factory = createFakeWhatsAppSocketFactory({ user: { ...TEST_BOT_USER } });
    const channel = harness.channel(factory);
    const { sink, intents } = createRecordingSink();
    await channel.start({ sink });
    const socket = await factory.socket(0);
    socket.open();
    socket.receive([buildDirectMessage({ from: ALICE_LID, text: 'hi' })]);
    await channel.idle();
    await channel.deliver({
      conversation: conversationRefOf(intentSchema.parse(intents[0])),
      events: textReply('kept for retries'),
    });
    const sentKey = socket.sent[0]?.message.key;
    const getMessage = factory.configs[0]?.getMessage;
    if (!sentKey || !getMessage) throw new Error('nothing sent or no getMessage');
    const content = await getMessage(sentKey);
    expect(textOf({ message: content })).toBe('kept for retries');
    // The same lookup works after a restart, from SQLite.
    await channel.stop();
    const secondFactory = createFakeWhatsAppSocketFactory({ user: { ...TEST_BOT_USER } });
    const second = harness.channel(secondFactory);
    await second.start({ sink });
    await secondFactory.socket(0);
    const restored = await secondFactory.configs[0]?.getMessage?.(sentKey);
    expect(textOf({ message: restored })).toBe('kept for retries');
    expect(
      await secondFactory.configs[0]?.getMessage?.({ remoteJid: ALICE_LID, id: 'UNKNOWN' }),
    ).toBeUndefined();
  });

  it('sends an apology when the turn failed without any text', async () => {
    const factory = createFakeWhatsAppSocketFactory({ user: { ...TEST_BOT_USER } });
    const channel = harness.channel(factory);
    const { sink, intents } = createRecordingSink();
    await channel.start({ sink });
    const socket = await factory.socket(0);
    socket.open();
    socket.receive([buildDirectMessage({ from: ALICE_LID, text: 'hello?' })]);
    await channel.idle();
    await channel.deliver({
      conversation: conversationRefOf(intentSchema.parse(intents[0])),
      events: replyEvents({
        type: 'error',
        code: 'model_unavailable',
        message: 'upstream 503',
        retryable: true,
      }),
    });
    expect(socket.sent).toHaveLength(1);
    expect(textOf(socket.sent[0]?.message ?? {})).toMatch(/^Sorry/);
  });

  it('de-duplicates by message id, also across a restart', async () => {
    const factory = createFakeWhatsAppSocketFactory({ user: { ...TEST_BOT_USER } });
    const first = harness.channel(factory);
    const { sink, intents } = createRecordingSink();
    await first.start({ sink });
    const socket = await factory.socket(0);
    socket.open();
    const message = buildDirectMessage({ from: ALICE_LID, text: 'once' });
    socket.receive([message]);
    socket.receive([message]);
    await first.idle();
    expect(intents).toHaveLength(1);
    await first.stop();

    const secondFactory = createFakeWhatsAppSocketFactory({ user: { ...TEST_BOT_USER } });
    const second = harness.channel(secondFactory);
    await second.start({ sink });
    const secondSocket = await secondFactory.socket(0);
    secondSocket.open();
    secondSocket.receive([message]);
    await second.idle();
    expect(intents).toHaveLength(1);
  });

  it('a reply waits for a dropped link to come back and goes out on the new socket', async () => {
    const factory = createFakeWhatsAppSocketFactory({ user: { ...TEST_BOT_USER } });
    const channel = harness.channel(factory);
    const { sink, intents } = createRecordingSink();
    await channel.start({ sink });
    const first = await factory.socket(0);
    first.open();
    first.receive([buildDirectMessage({ from: ALICE_LID, text: 'ping' })]);
    await channel.idle();
    first.close(new Boom('Connection Terminated', { statusCode: DisconnectReason.connectionClosed }));
    expect(channel.health().status).toBe('connecting');

    const delivery = channel.deliver({
      conversation: conversationRefOf(intentSchema.parse(intents[0])),
      events: textReply('pong'),
    });
    const second = await factory.socket(1);
    second.open();
    await delivery;
    expect(first.sent).toHaveLength(0);
    expect(second.sent.map((entry) => textOf(entry.message))).toEqual(['pong']);
  });

  it('persists creds on creds.update so a restart is still linked', async () => {
    const factory = createFakeWhatsAppSocketFactory();
    const first = harness.channel(factory);
    await first.start({ sink: createRecordingSink().sink });
    const socket = await factory.socket(0);
    const auth = factory.configs[0]?.auth;
    if (!auth) throw new Error('no auth passed to the socket');
    auth.creds.me = { id: TEST_BOT_USER.id, lid: TEST_BOT_USER.lid };
    auth.creds.registered = true;
    socket.ev.emit('creds.update', { me: auth.creds.me, registered: true });
    await first.stop();

    const secondFactory = createFakeWhatsAppSocketFactory();
    const second = harness.channel(secondFactory);
    await second.start({ sink: createRecordingSink().sink });
    await secondFactory.socket(0);
    const restored = secondFactory.configs[0]?.auth.creds;
    expect(restored?.registered).toBe(true);
    expect(restored?.me?.lid).toBe(TEST_BOT_USER.lid);
    expect(
      Buffer.compare(Buffer.from(restored?.noiseKey.private ?? []), Buffer.from(auth.creds.noiseKey.private)),
    ).toBe(0);
  });
});
