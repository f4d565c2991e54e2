import { intentSchema } from '@nexus/protocol';
import {
  buildDirectMessage,
  buildEphemeralMessage,
  buildFromMeMessage,
  buildGroupMessage,
  buildNewsletterMessage,
  buildStatusBroadcastMessage,
  buildViewOnceMessage,
  TEST_BOT_LID,
  TEST_BOT_PHONE_JID,
} from '@nexus/testkit/whatsapp';
import { proto, type WAMessage } from '@whiskeysockets/baileys';
import { describe, expect, it } from 'vitest';
import { type MessageMapping, parseWhatsAppIntentId, whatsAppMessageToIntent } from './to-intent.ts';

const bot = { phoneJid: TEST_BOT_PHONE_JID, lidJid: TEST_BOT_LID };
const now = () => Date.parse('2026-01-01T00:00:00Z');
const ALICE_LID = '310000000002@lid';
const ALICE_PHONE = '15550000002@s.whatsapp.net';
const GROUP = '120363000000000001@g.us';

function map(message: WAMessage): MessageMapping {
  return whatsAppMessageToIntent({ message, channel: 'whatsapp', bot, now });
}

function intentOf(message: WAMessage) {
  const mapping = map(message);
  if ('skip' in mapping) throw new Error(`skipped: ${mapping.skip}`);
  // Whatever the adapter produces must pass core's own validation.
  return { ...mapping, parsed: intentSchema.parse(mapping.intent) };
}

describe('whatsAppMessageToIntent', () => {
  it('maps a direct conversation message, LID first, addressed to the assistant', () => {
    const message = buildDirectMessage({
      from: ALICE_PHONE,
      fromAlt: ALICE_LID,
      text: 'hello there',
      pushName: 'Alice',
      timestampSeconds: 1_767_225_000,
    });
    const { parsed, timestampSeconds } = intentOf(message);
    expect(parsed).toMatchObject({
      id: `${ALICE_PHONE}/${message.key.id}`,
      channel: 'whatsapp',
      conversation: { id: ALICE_LID, kind: 'direct' },
      sender: { platformId: ALICE_LID, displayName: 'Alice' },
      userId: `whatsapp:${ALICE_LID}`,
      text: 'hello there',
      mentionsAssistant: true,
      receivedAt: new Date(1_767_225_000_000).toISOString(),
    });
    expect(timestampSeconds).toBe(1_767_225_000);
    expect(parseWhatsAppIntentId(parsed.id)).toEqual({ remoteJid: ALICE_PHONE, messageId: message.key.id });
  });

  it('survives the protobuf round trip Baileys messages go through (Long timestamps)', () => {
    const original = buildDirectMessage({ from: ALICE_LID, text: 'x', timestampSeconds: 1_767_225_001 });
    const decoded = proto.WebMessageInfo.decode(proto.WebMessageInfo.encode(original).finish()) as WAMessage;
    expect(typeof decoded.messageTimestamp).toBe('object');
    expect(intentOf(decoded).timestampSeconds).toBe(1_767_225_001);
  });

  it('takes the group sender from participant and detects a mention by LID', () => {
    const message = buildGroupMessage({
      group: GROUP,
      participant: ALICE_LID,
      participantAlt: ALICE_PHONE,
      text: '@210000000001 what time is it?',
      mentionedJids: [TEST_BOT_LID],
    });
    const { parsed } = intentOf(message);
    expect(parsed.conversation).toEqual({ id: GROUP, kind: 'group' });
    expect(parsed.sender.platformId).toBe(ALICE_LID);
    expect(parsed.mentionsAssistant).toBe(true);
    expect(parsed.text).toBe('what time is it?');
  });

  it('detects a mention by phone JID, even with a device suffix', () => {
    const message = buildGroupMessage({
      group: GROUP,
      participant: ALICE_LID,
      text: '@15550000001 hi',
      mentionedJids: ['15550000001:7@s.whatsapp.net'],
    });
    expect(intentOf(message).parsed.mentionsAssistant).toBe(true);
    expect(intentOf(message).parsed.text).toBe('hi');
  });

  it('treats a reply to one of the assistant’s messages as addressed', () => {
    const message = buildGroupMessage({
      group: GROUP,
      participant: ALICE_LID,
      text: 'and tomorrow?',
      quoted: { id: '3EB0AAAA', participant: TEST_BOT_PHONE_JID, text: 'Sunny today.' },
    });
    const { parsed } = intentOf(message);
    expect(parsed.mentionsAssistant).toBe(true);
    expect(parsed.replyTo).toBe(`${GROUP}/3EB0AAAA`);
  });

  it('does not address the assistant when someone else is mentioned', () => {
    const message = buildGroupMessage({
      group: GROUP,
      participant: ALICE_LID,
      text: '@bob see this',
      mentionedJids: ['310000000003@lid', '15550000003@s.whatsapp.net'],
    });
    expect(intentOf(message).parsed.mentionsAssistant).toBe(false);
    expect(intentOf(message).parsed.text).toBe('@bob see this');
  });

  it('unwraps ephemeral text and ephemeral image captions', () => {
    expect(intentOf(buildEphemeralMessage({ from: ALICE_LID, text: 'vanishing' })).parsed.text).toBe(
      'vanishing',
    );
    const image = intentOf(buildEphemeralMessage({ from: ALICE_LID, imageCaption: 'look' })).parsed;
    expect(image.text).toBe('look');
    expect(image.attachments).toEqual([
      { kind: 'image', platformFileId: image.id, mimeType: 'image/jpeg', sizeBytes: 2048 },
    ]);
  });

  it('unwraps view-once media and keeps its caption', () => {
    const parsed = intentOf(buildViewOnceMessage({ from: ALICE_LID, caption: 'once only' })).parsed;
    expect(parsed.text).toBe('once only');
    expect(parsed.attachments[0]?.kind).toBe('image');
  });

  it.each([
    ['from_me', buildFromMeMessage({ to: ALICE_LID, text: 'my own echo' })],
    ['status_broadcast', buildStatusBroadcastMessage({ participant: ALICE_LID, text: 'my status' })],
    ['newsletter', buildNewsletterMessage({ newsletter: '120363000000000009@newsletter', text: 'news' })],
  ])('skips %s', (reason, message) => {
    expect(map(message)).toEqual({ skip: reason });
  });

  it('skips content without text or media (reactions, protocol messages)', () => {
    const reaction = proto.WebMessageInfo.create({
      key: { remoteJid: ALICE_LID, id: '3EB0BBBB', fromMe: false },
      messageTimestamp: 1_767_225_000,
      message: { reactionMessage: { text: '👍', key: { id: '3EB0AAAA' } } },
    }) as WAMessage;
    expect(map(reaction)).toEqual({ skip: 'no_content' });
  });
});
