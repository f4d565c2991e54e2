import { type ScriptedModelServer, startScriptedModelServer } from '@nexus/testkit/llm';
import {
  buildDirectMessage,
  buildEditMessage,
  buildGroupMessage,
  buildRevokeMessage,
  createFakeWhatsAppSocketFactory,
  type FakeWhatsAppSocket,
  TEST_BOT_LID,
  TEST_BOT_USER,
} from '@nexus/testkit/whatsapp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  chatTurns,
  correctionNotePattern,
  lastHistory,
  settle,
  until,
} from '../testing/edit-test-support.ts';
import { startTestGateway } from '../testing/test-gateway.ts';

// Edits and deletes end to end on WhatsApp: protocol messages (MESSAGE_EDIT, REVOKE) built as a
// phone sends them arrive through Baileys' own event buffer at the real gateway (the adapter, core
// with its SQLite inbox and sessions, the AI SDK against the scripted model). Replies are paced
// one per second per account, as the adapter does against spam detection: these tests take seconds.

const GROUP = '120363000000000077@g.us';
const ALICE = { lid: '310000000012@lid', phone: '15550000012@s.whatsapp.net' };
const BOB = { lid: '310000000013@lid', phone: '15550000013@s.whatsapp.net' };

let model: ScriptedModelServer;
let socket: FakeWhatsAppSocket;
let gateway: Awaited<ReturnType<typeof startTestGateway>>;

beforeAll(async () => {
  model = await startScriptedModelServer();
  const whatsapp = createFakeWhatsAppSocketFactory({ user: { ...TEST_BOT_USER } });
  gateway = await startTestGateway({
    modelBaseUrl: model.baseUrl,
    whatsappSocketFactory: whatsapp.factory,
    env: {
      NEXUS_WHATSAPP_ENABLED: 'true',
      NEXUS_WHATSAPP_DM_POLICY: 'open',
      NEXUS_GROUP_ALLOWLIST: `whatsapp:${GROUP}`,
    },
  });
  socket = await whatsapp.socket(0);
  // Let the adapter attach its listeners to the new socket before it opens.
  await new Promise((resolve) => setTimeout(resolve, 0));
  socket.open();
});
afterAll(async () => {
  await gateway?.dispose();
  await model?.close();
});

const textOf = (content: unknown) =>
  content && typeof content === 'object' && 'text' in content ? String(content.text) : '';

/** What the bot sent to these chats, once there are at least `count` sends and core is idle. */
async function sentTo(jids: string[], count: number) {
  const sends = () => socket.sent.filter((send) => jids.includes(send.jid));
  await until(() => sends().length >= count, `${count} sends to ${jids.join(' or ')}`);
  await gateway.core.whenIdle();
  return sends();
}

describe('WhatsApp: an edit of the newest message', () => {
  it('is answered once, quoting the edited message, with the new words only; the same edit again is not', async () => {
    const asked = buildGroupMessage({
      group: GROUP,
      participant: ALICE.lid,
      participantAlt: ALICE.phone,
      text: '@Nexus what is 2+2?',
      mentionedJids: [TEST_BOT_LID],
    });
    socket.receive([asked]);
    const [first] = await sentTo([GROUP], 1);
    expect(textOf(first?.content)).toContain('what is 2+2?');

    const edit = buildEditMessage({
      original: asked,
      text: '@Nexus what is 3+3?',
      mentionedJids: [TEST_BOT_LID],
    });
    socket.receive([edit]);
    const sent = await sentTo([GROUP], 2);
    const reanswer = sent[1]!;
    expect(textOf(reanswer.content)).toContain('what is 3+3?');
    // A new message quoting the edited one (WhatsApp cannot thread, it quotes).
    expect(reanswer.message.key.id).not.toBe(first?.message.key.id);
    expect(reanswer.options?.quoted?.key.id).toBe(asked.key.id);
    expect(lastHistory(model)).toContain('3+3');
    expect(lastHistory(model)).not.toContain('2+2');
    const turns = chatTurns(model).length;

    // The same message again (a phone resending it). The chat's messages are handled in order, so
    // a second answer would come before the follow-up's.
    socket.receive([edit]);
    socket.receive([
      buildGroupMessage({
        group: GROUP,
        participant: ALICE.lid,
        participantAlt: ALICE.phone,
        text: '@Nexus thanks',
        mentionedJids: [TEST_BOT_LID],
      }),
    ]);
    const after = await sentTo([GROUP], 3);
    await settle();
    expect(socket.sent.filter((send) => send.jid === GROUP)).toHaveLength(3);
    expect(textOf(after[2]?.content)).toContain('thanks');
    expect(chatTurns(model)).toHaveLength(turns + 1);
  });
});

describe('WhatsApp: an edit of an older message, and a delete', () => {
  // One conversation for both: every reply costs a second of pacing.
  it('notes the older edit without a reply; a deleted message leaves the next request; nothing is sent for either', async () => {
    const bob = [BOB.lid, BOB.phone];
    const say = (text: string) => {
      const message = buildDirectMessage({ from: BOB.lid, fromAlt: BOB.phone, text });
      socket.receive([message]);
      return message;
    };
    const flight = say('My flight is on Monday');
    await sentTo(bob, 1);
    const pin = say('My PIN is 4321');
    await sentTo(bob, 2);

    socket.receive([buildEditMessage({ original: flight, text: 'My flight is on Tuesday' })]);
    say('When do I fly?');
    const sent = await sentTo(bob, 3);
    expect(textOf(sent[2]?.content)).toContain('When do I fly?');
    const history = lastHistory(model);
    expect(history).toContain('user: My flight is on Tuesday\nassistant: Echo: My flight is on Monday');
    expect(history).toMatch(correctionNotePattern('My flight is on Monday', 'My flight is on Tuesday'));
    expect(history).toMatch(/user: When do I fly\?$/u);

    socket.receive([buildRevokeMessage({ original: pin })]);
    say('What did I tell you?');
    const after = await sentTo(bob, 4);
    await settle();
    expect(socket.sent.filter((send) => bob.includes(send.jid))).toHaveLength(4);
    expect(textOf(after[3]?.content)).toContain('What did I tell you?');
    const next = lastHistory(model);
    expect(next).not.toContain('4321');
    expect(next).toContain('user: My flight is on Tuesday');
    expect(next).toMatch(
      /user: When do I fly\?\nassistant: Echo: When do I fly\?\nuser: What did I tell you\?$/u,
    );
  });
});
