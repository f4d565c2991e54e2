import { Boom } from '@hapi/boom';
import type { NexusCore } from '@nexus/core';
import { type ScriptedCore, startScriptedCore } from '@nexus/core/testing';
import type { ScriptedModelServer } from '@nexus/testkit/llm';
import {
  buildDirectMessage,
  buildGroupMessage,
  createFakeWhatsAppSocketFactory,
  type FakeWhatsAppSocket,
  type FakeWhatsAppSocketFactory,
  TEST_BOT_LID,
  TEST_BOT_PHONE_JID,
  TEST_BOT_USER,
} from '@nexus/testkit/whatsapp';
import { DisconnectReason, normalizeMessageContent, type WAMessage } from '@whiskeysockets/baileys';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWhatsAppHarness } from './testing/whatsapp-harness.ts';
import type { WhatsAppChannel } from './whatsapp-channel.ts';

const ALICE_LID = '310000000002@lid';
const ALICE_PHONE = '15550000002@s.whatsapp.net';
const BOB_LID = '310000000003@lid';
const GROUP = '120363000000000001@g.us';

let harness: ReturnType<typeof createWhatsAppHarness>;
let scripted: ScriptedCore;
let model: ScriptedModelServer;
let core: NexusCore;
let factory: FakeWhatsAppSocketFactory;
let channel: WhatsAppChannel;
let socket: FakeWhatsAppSocket;

beforeEach(async () => {
  harness = createWhatsAppHarness();
  scripted = await startScriptedCore();
  ({ model, core } = scripted);
  factory = createFakeWhatsAppSocketFactory({ user: { ...TEST_BOT_USER } });
  channel = harness.channel(factory);
  core.registerChannel(channel);
  await channel.start({ sink: core.intake });
  socket = await factory.socket(0);
  socket.open();
});

afterEach(async () => {
  await core.shutdown({ deadlineMs: 2000 });
  await harness.cleanup();
  await model.close();
});

function textOf(message: WAMessage): string {
  const content = normalizeMessageContent(message.message);
  return content?.conversation ?? content?.extendedTextMessage?.text ?? '';
}

const lastUserText = (index: number) => scripted.lastUserText(index);

/** Waits until `count` messages went out on `target` and the core has nothing left to do. */
async function sentCount(target: FakeWhatsAppSocket, count: number): Promise<void> {
  const started = Date.now();
  while (target.sent.length < count) {
    if (Date.now() - started > 10_000) throw new Error(`only ${target.sent.length} of ${count} sent`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await channel.idle();
  await core.whenIdle();
}

describe('WhatsApp through the core with the scripted model', () => {
  it('answers a direct message in the chat, with composing shown while the model runs', async () => {
    socket.receive([
      buildDirectMessage({ from: ALICE_PHONE, fromAlt: ALICE_LID, text: 'what is two plus two?' }),
    ]);
    await sentCount(socket, 1);
    expect(lastUserText(0)).toBe('what is two plus two?');
    expect(socket.sent[0]?.jid).toBe(ALICE_LID);
    expect(textOf(socket.sent[0]?.message as WAMessage)).toBe('Echo: what is two plus two?');
    expect(socket.presenceUpdates.map((update) => update.type)).toContain('composing');
    expect(socket.presenceUpdates.at(-1)).toEqual({ type: 'paused', jid: ALICE_LID });
  });

  it('in a group answers only the mention (by LID or phone), quoting it', async () => {
    const chatter = buildGroupMessage({ group: GROUP, participant: BOB_LID, text: 'anyone for lunch?' });
    const byLid = buildGroupMessage({
      group: GROUP,
      participant: ALICE_LID,
      participantAlt: ALICE_PHONE,
      text: '@210000000001 weather today?',
      mentionedJids: [TEST_BOT_LID],
    });
    socket.receive([chatter, byLid]);
    await sentCount(socket, 1);
    expect(model.chatRequests()).toHaveLength(1);
    expect(lastUserText(0)).toBe('weather today?');
    const reply = socket.sent[0];
    expect(reply?.jid).toBe(GROUP);
    expect(textOf(reply?.message as WAMessage)).toBe('Echo: weather today?');
    const context = normalizeMessageContent(reply?.message.message)?.extendedTextMessage?.contextInfo;
    expect(context?.stanzaId).toBe(byLid.key.id);

    const byPhone = buildGroupMessage({
      group: GROUP,
      participant: BOB_LID,
      text: '@15550000001 and tomorrow?',
      mentionedJids: [TEST_BOT_PHONE_JID],
    });
    socket.receive([byPhone]);
    await sentCount(socket, 2);
    expect(textOf(socket.sent[1]?.message as WAMessage)).toBe('Echo: and tomorrow?');
    expect(model.chatRequests()).toHaveLength(2);
  });

  it('renders the model’s Markdown the WhatsApp way', async () => {
    model.enqueue({
      text: '## Plan\n\n**Bold** move, _quietly_, with `code` and [docs](https://example.org).',
    });
    socket.receive([buildDirectMessage({ from: ALICE_LID, text: 'plan?' })]);
    await sentCount(socket, 1);
    expect(textOf(socket.sent[0]?.message as WAMessage)).toBe(
      '*Plan*\n\n*Bold* move, _quietly_, with `code` and docs (https://example.org).',
    );
  });

  it('after a reconnect answers what arrived meanwhile exactly once, and no older history', async () => {
    socket.receive([buildDirectMessage({ from: ALICE_LID, text: 'before the drop' })]);
    await sentCount(socket, 1);

    socket.close(new Boom('Connection Lost', { statusCode: DisconnectReason.connectionLost }));
    const nowSeconds = Math.floor(Date.now() / 1000);
    const meanwhile = buildDirectMessage({
      from: BOB_LID,
      text: 'sent while you were away',
      timestampSeconds: nowSeconds + 1,
    });
    const history = buildDirectMessage({
      from: BOB_LID,
      text: 'old history',
      timestampSeconds: nowSeconds - 3_600,
    });
    const second = await factory.socket(1);
    second.open();
    second.receive([history, meanwhile], 'append');
    second.receive([history, meanwhile], 'append');
    await sentCount(second, 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await core.whenIdle();
    expect(second.sent.map((entry) => textOf(entry.message))).toEqual(['Echo: sent while you were away']);
    expect(model.chatRequests().map((_, index) => lastUserText(index))).toEqual([
      'before the drop',
      'sent while you were away',
    ]);
  });
});
