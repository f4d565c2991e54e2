import { type IntakeResult, type IntentInput, type IntentSink, intentSchema } from '@nexus/protocol';
import {
  buildDirectMessage,
  buildEditMessage,
  buildFromMeMessage,
  buildGroupMessage,
  buildRevokeMessage,
  createFakeWhatsAppSocketFactory,
  TEST_BOT_LID,
  TEST_BOT_USER,
} from '@nexus/testkit/whatsapp';
import { proto } from '@whiskeysockets/baileys';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRecordingSink, createWhatsAppHarness } from './testing/whatsapp-harness.ts';

const ALICE_LID = '310000000002@lid';
const ALICE_PHONE = '15550000002@s.whatsapp.net';
const BOB_LID = '310000000003@lid';
const ADMIN_LID = '310000000009@lid';
const GROUP = '120363000000000001@g.us';

let harness: ReturnType<typeof createWhatsAppHarness>;
beforeEach(() => {
  harness = createWhatsAppHarness();
});
afterEach(async () => {
  await harness.cleanup();
});

async function openChannel(
  options: Parameters<typeof harness.channel>[1] = {},
  sink: { sink: IntentSink; intents: IntentInput[] } = createRecordingSink(),
) {
  const factory = createFakeWhatsAppSocketFactory({ user: { ...TEST_BOT_USER } });
  const channel = harness.channel(factory, options);
  await channel.start({ sink: sink.sink });
  const socket = await factory.socket(0);
  socket.open();
  return { channel, socket, intents: sink.intents };
}

describe('WhatsApp edits and deletes', () => {
  it('turns a MESSAGE_EDIT (wrapped or bare) into one edit intent of the original', async () => {
    const { channel, socket, intents } = await openChannel();
    const original = buildDirectMessage({ from: ALICE_LID, fromAlt: ALICE_PHONE, text: 'meet at 5' });
    socket.receive([original]);
    await channel.idle();
    const edit = buildEditMessage({ original, text: 'meet at 6', editedAtMs: 1_750_000_000_123 });
    const bare = buildEditMessage({
      original,
      text: 'meet at 7',
      editedAtMs: 1_750_000_060_000,
      wrapped: false,
    });
    socket.receive([edit]);
    socket.receive([bare]);
    await channel.idle();
    const targetId = `${ALICE_LID}/${original.key.id}`;
    expect(intents[0]?.id).toBe(targetId);
    expect(intentSchema.parse(intents[1])).toMatchObject({
      id: `${targetId}:edit:1750000000123`,
      text: 'meet at 6',
      conversation: { id: ALICE_LID, kind: 'direct' },
      sender: { platformId: ALICE_LID },
      revises: { kind: 'edit', targetIntentId: targetId },
    });
    expect(intents[2]).toMatchObject({
      id: `${targetId}:edit:1750000060000`,
      text: 'meet at 7',
      revises: { kind: 'edit', targetIntentId: targetId },
    });
    expect(intents).toHaveLength(3);
    expect(channel.capabilities.revisions).toEqual({ edits: true, deletes: true });
  });

  it('hands a redelivered edit over once, and again after a restart while it was still pending', async () => {
    let refuse = true;
    const seen: string[] = [];
    const sink = {
      intents: [] as IntentInput[],
      sink: async (intent: IntentInput): Promise<IntakeResult> => {
        seen.push(intent.id);
        if (intent.revises && refuse)
          return { status: 'rejected', code: 'shutting_down', message: 'later', retryable: true };
        return { status: 'accepted' };
      },
    };
    // A long retry pause: only a restart hands the refused edit over again here.
    const first = await openChannel({ intakeRetryDelayMs: 60_000 }, sink);
    const original = buildDirectMessage({ from: ALICE_LID, text: 'v1' });
    first.socket.receive([original]);
    await first.channel.idle();
    const edit = buildEditMessage({ original, text: 'v2', editedAtMs: 1_750_000_000_000 });
    first.socket.receive([edit]);
    await first.channel.idle();
    // WhatsApp hands the same notice over again (offline backlog): no second hand-over while pending.
    first.socket.receive([edit], 'append');
    await first.channel.idle();
    expect(seen.filter((id) => id.includes(':edit:'))).toHaveLength(1);
    await first.channel.stop();

    // The refused edit stayed in the pending table; the next process hands it over under the same id.
    refuse = false;
    const second = await openChannel({}, sink);
    await second.channel.idle();
    const edits = seen.filter((id) => id.includes(':edit:'));
    expect(edits).toHaveLength(2);
    expect(edits[1]).toBe(edits[0]);
    second.socket.receive([edit]);
    await second.channel.idle();
    expect(seen.filter((id) => id.includes(':edit:'))).toHaveLength(2);
  });

  it('turns a REVOKE into a delete intent; in groups only of messages core took', async () => {
    const { channel, socket, intents } = await openChannel();
    const direct = buildDirectMessage({ from: ALICE_LID, text: 'oops' });
    const question = buildGroupMessage({
      group: GROUP,
      participant: BOB_LID,
      text: '@210000000001 hi',
      mentionedJids: [TEST_BOT_LID],
    });
    const chatter = buildGroupMessage({ group: GROUP, participant: BOB_LID, text: 'lunch?' });
    socket.receive([direct, question, chatter]);
    await channel.idle();
    socket.receive([
      buildRevokeMessage({ original: direct }),
      buildRevokeMessage({ original: question, byParticipant: ADMIN_LID }),
      buildRevokeMessage({ original: chatter }),
    ]);
    await channel.idle();
    expect(intents.map((intent) => [intent.id, intent.revises?.kind, intent.text])).toEqual([
      [`${ALICE_LID}/${direct.key.id}`, undefined, 'oops'],
      [`${GROUP}/${question.key.id}`, undefined, 'hi'],
      [`${ALICE_LID}/${direct.key.id}:delete`, 'delete', ''],
      [`${GROUP}/${question.key.id}:delete`, 'delete', ''],
    ]);
    expect(intentSchema.parse(intents[3])).toMatchObject({
      conversation: { id: GROUP, kind: 'group' },
      sender: { platformId: ADMIN_LID },
      revises: { targetIntentId: `${GROUP}/${question.key.id}` },
    });
  });

  it('ignores the bot’s own edits, gates group edits, and survives malformed notices', async () => {
    const { channel, socket, intents } = await openChannel();
    const own = buildFromMeMessage({ to: ALICE_LID, text: 'bot said' });
    const ownEdit = buildEditMessage({ original: own, text: 'bot edited' });
    ownEdit.key.fromMe = true;
    const chatter = buildGroupMessage({ group: GROUP, participant: BOB_LID, text: 'lunch?' });
    socket.receive([chatter]);
    socket.receive([
      ownEdit,
      buildEditMessage({ original: chatter, text: 'lunch at 1?' }),
      buildEditMessage({
        original: chatter,
        text: '@210000000001 lunch at 1?',
        mentionedJids: [TEST_BOT_LID],
      }),
    ]);
    const malformed = [
      buildDirectMessage({ from: ALICE_LID, text: 'x' }),
      buildDirectMessage({ from: ALICE_LID, text: 'y' }),
    ];
    malformed[0]!.message = { protocolMessage: { type: proto.Message.ProtocolMessage.Type.MESSAGE_EDIT } };
    malformed[1]!.message = {
      protocolMessage: { type: proto.Message.ProtocolMessage.Type.MESSAGE_EDIT, key: { id: 'ABC' } },
    };
    socket.receive(malformed);
    socket.receive([buildDirectMessage({ from: ALICE_LID, text: 'still here' })]);
    await channel.idle();
    expect(intents.map((intent) => [intent.text, intent.revises?.kind, intent.mentionsAssistant])).toEqual([
      ['lunch at 1?', 'edit', true],
      ['still here', undefined, true],
    ]);
  });
});
