import { Boom } from '@hapi/boom';
import type { IntentSink } from '@nexus/protocol';
import {
  buildDirectMessage,
  buildGroupMessage,
  createFakeWhatsAppSocketFactory,
  TEST_BOT_LID,
  TEST_BOT_USER,
} from '@nexus/testkit/whatsapp';
import { DisconnectReason } from '@whiskeysockets/baileys';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRecordingSink, createWhatsAppHarness, textReply } from './testing/whatsapp-harness.ts';

const ALICE = '310000000002@lid';
const BOB = '310000000003@lid';
const GROUP = '120363000000000001@g.us';

async function until(probe: () => boolean): Promise<void> {
  for (let waited = 0; !probe(); waited += 10) {
    if (waited > 5_000) throw new Error('condition not met in 5 s');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

let harness: ReturnType<typeof createWhatsAppHarness>;
beforeEach(() => {
  harness = createWhatsAppHarness();
});
afterEach(async () => {
  await harness.cleanup();
});

describe('append after a reconnect', () => {
  it('answers messages delivered while disconnected exactly once, never older history', async () => {
    let clock = Date.parse('2026-03-01T12:00:00Z');
    const seconds = () => Math.floor(clock / 1000);
    const factory = createFakeWhatsAppSocketFactory({ user: { ...TEST_BOT_USER } });
    const channel = harness.channel(factory, { now: () => clock });
    const { sink, intents } = createRecordingSink();
    await channel.start({ sink });
    const first = await factory.socket(0);
    first.open();

    // Right after the first link, WhatsApp backfills old chats as `append`: none is answered.
    const linkedAt = seconds();
    first.receive(
      [
        buildDirectMessage({ from: ALICE, text: 'from last week', timestampSeconds: linkedAt - 7 * 86_400 }),
        buildDirectMessage({ from: BOB, text: 'from an hour ago', timestampSeconds: linkedAt - 3_600 }),
      ],
      'append',
    );
    clock += 5_000;
    const live = buildDirectMessage({ from: ALICE, text: 'live one', timestampSeconds: seconds() });
    first.receive([live]);
    await channel.idle();
    expect(intents.map((intent) => intent.text)).toEqual(['live one']);

    // The link drops; while it is down two messages arrive (one in a group, addressed).
    first.close(new Boom('Connection Lost', { statusCode: DisconnectReason.connectionLost }));
    clock += 60_000;
    const whileDownDirect = buildDirectMessage({
      from: BOB,
      text: 'are you there?',
      timestampSeconds: seconds(),
    });
    clock += 1_000;
    const whileDownGroup = buildGroupMessage({
      group: GROUP,
      participant: ALICE,
      text: '@210000000001 ping',
      mentionedJids: [TEST_BOT_LID],
      timestampSeconds: seconds(),
    });
    const olderHistory = buildDirectMessage({ from: BOB, text: 'ancient', timestampSeconds: linkedAt - 600 });

    const second = await factory.socket(1);
    clock += 2_000;
    second.open();
    const offlineBatch = [olderHistory, live, whileDownDirect, whileDownGroup];
    second.receive(offlineBatch, 'append');
    second.receive(offlineBatch, 'append');
    second.receive([whileDownGroup], 'notify');
    await channel.idle();
    expect(intents.map((intent) => intent.text)).toEqual(['live one', 'are you there?', 'ping']);
    expect(intents[2]?.mentionsAssistant).toBe(true);

    // A restart on the same auth file remembers both the cursor and the handled ids.
    await channel.stop();
    const restartFactory = createFakeWhatsAppSocketFactory({ user: { ...TEST_BOT_USER } });
    const restarted = harness.channel(restartFactory, { now: () => clock });
    await restarted.start({ sink });
    const third = await restartFactory.socket(0);
    clock += 1_000;
    const afterRestart = buildDirectMessage({
      from: ALICE,
      text: 'sent during the restart',
      timestampSeconds: seconds(),
    });
    third.open();
    third.receive([...offlineBatch, afterRestart], 'append');
    await restarted.idle();
    expect(intents.map((intent) => intent.text)).toEqual([
      'live one',
      'are you there?',
      'ping',
      'sent during the restart',
    ]);
  });

  it('does not answer offline messages older than appendMaxAgeMs', async () => {
    let clock = Date.parse('2026-03-01T12:00:00Z');
    const factory = createFakeWhatsAppSocketFactory({ user: { ...TEST_BOT_USER } });
    const channel = harness.channel(factory, { now: () => clock, appendMaxAgeMs: 3_600_000 });
    const { sink, intents } = createRecordingSink();
    await channel.start({ sink });
    const first = await factory.socket(0);
    first.open();
    first.close(new Boom('Connection Lost', { statusCode: DisconnectReason.connectionLost }));
    clock += 60_000;
    const stale = buildDirectMessage({
      from: ALICE,
      text: 'stale',
      timestampSeconds: Math.floor(clock / 1000),
    });
    clock += 2 * 3_600_000;
    const fresh = buildDirectMessage({
      from: ALICE,
      text: 'fresh',
      timestampSeconds: Math.floor(clock / 1000),
    });
    const second = await factory.socket(1);
    second.open();
    second.receive([stale, fresh], 'append');
    await channel.idle();
    expect(intents.map((intent) => intent.text)).toEqual(['fresh']);
  });

  it('a message the sink failed on stays pending and is handed over again, once', async () => {
    const factory = createFakeWhatsAppSocketFactory({ user: { ...TEST_BOT_USER } });
    const channel = harness.channel(factory, { intakeRetryDelayMs: 20 });
    const texts: string[] = [];
    let failures = 1;
    const sink: IntentSink = async (intent) => {
      if (failures > 0) {
        failures -= 1;
        throw new Error('core is restarting');
      }
      texts.push(intent.text);
      return { status: 'accepted' };
    };
    await channel.start({ sink });
    const socket = await factory.socket(0);
    socket.open();
    const message = buildDirectMessage({ from: ALICE, text: 'try again' });
    socket.receive([message]);
    await channel.idle();
    expect(texts).toEqual([]);
    // Baileys already sent the receipt, so WhatsApp will not send it again: the pending copy is retried.
    await until(() => texts.length === 1);
    await channel.idle();
    // Should a copy still arrive, it is not handed over a second time.
    socket.receive([message], 'append');
    await channel.idle();
    expect(texts).toEqual(['try again']);
  });

  it('keeps what arrived during stopIntake and a refusal as retryable, and hands it over on the next start', async () => {
    const factory = createFakeWhatsAppSocketFactory({ user: { ...TEST_BOT_USER } });
    const first = harness.channel(factory, { intakeRetryDelayMs: 60_000 });
    const taken: string[] = [];
    await first.start({
      sink: async (intent) => {
        if (intent.text === 'refused') return { status: 'rejected', code: 'shutting_down', message: 'later' };
        taken.push(intent.text);
        return { status: 'accepted' };
      },
    });
    const socket = await factory.socket(0);
    socket.open();
    socket.receive([buildDirectMessage({ from: ALICE, text: 'taken' })]);
    socket.receive([buildDirectMessage({ from: BOB, text: 'refused' })]);
    await first.idle();
    await first.stopIntake?.();
    await first.stopIntake?.();
    socket.receive([buildDirectMessage({ from: ALICE, text: 'after stopIntake' })]);
    await first.idle();
    expect(taken).toEqual(['taken']);
    await first.stop();

    const secondFactory = createFakeWhatsAppSocketFactory({ user: { ...TEST_BOT_USER } });
    const second = harness.channel(secondFactory);
    const { sink, intents } = createRecordingSink();
    await second.start({ sink });
    await second.idle();
    expect(intents.map((intent) => intent.text).sort()).toEqual(['after stopIntake', 'refused']);
  });

  it('a reply handed over before start (core replaying its inbox) goes out once the link is up', async () => {
    const factory = createFakeWhatsAppSocketFactory({ user: { ...TEST_BOT_USER } });
    const channel = harness.channel(factory);
    const delivered = channel.deliver({
      conversation: {
        channel: 'whatsapp',
        conversationId: ALICE,
        kind: 'direct',
        intentId: `${ALICE}/early`,
        userId: `whatsapp:${ALICE}`,
        senderPlatformId: ALICE,
      },
      events: textReply('replayed answer'),
    });
    await channel.start({ sink: createRecordingSink().sink });
    (await factory.socket(0)).open();
    await delivered;
    const sent = (await factory.socket(0)).sent.map((entry) =>
      'text' in entry.content ? entry.content.text : '',
    );
    expect(sent).toEqual(['replayed answer']);
  });

  it('keeps per-chat order even when the sink is slow', async () => {
    const factory = createFakeWhatsAppSocketFactory({ user: { ...TEST_BOT_USER } });
    const channel = harness.channel(factory);
    const order: string[] = [];
    const sink: IntentSink = async (intent) => {
      // The first message of each chat is the slowest.
      await new Promise((resolve) => setTimeout(resolve, intent.text.endsWith('1') ? 30 : 1));
      order.push(intent.text);
      return { status: 'accepted' };
    };
    await channel.start({ sink });
    const socket = await factory.socket(0);
    socket.open();
    for (const index of [1, 2, 3]) {
      socket.receive([buildDirectMessage({ from: ALICE, text: `alice ${index}` })]);
      socket.receive([buildDirectMessage({ from: BOB, text: `bob ${index}` })]);
    }
    await channel.idle();
    expect(order.filter((text) => text.startsWith('alice'))).toEqual(['alice 1', 'alice 2', 'alice 3']);
    expect(order.filter((text) => text.startsWith('bob'))).toEqual(['bob 1', 'bob 2', 'bob 3']);
  });
});
