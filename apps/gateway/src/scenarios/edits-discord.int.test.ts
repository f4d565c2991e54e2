import { type FakeDiscord, startFakeDiscord } from '@nexus/testkit/discord';
import { type ScriptedModelServer, startScriptedModelServer } from '@nexus/testkit/llm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatTurns, correctionNotePattern, lastHistory, settle } from '../testing/edit-test-support.ts';
import { startTestGateway } from '../testing/test-gateway.ts';

// Edits and deletes end to end on Discord: the fake gateway dispatches MESSAGE_UPDATE and
// MESSAGE_DELETE to the real discord.js client in the real gateway (core with its SQLite inbox and
// sessions, the AI SDK against the scripted model), and replies go through the fake's REST, which
// de-duplicates enforced nonces as Discord does.

let model: ScriptedModelServer;
let discord: FakeDiscord;
let gateway: Awaited<ReturnType<typeof startTestGateway>>;

beforeAll(async () => {
  model = await startScriptedModelServer();
  discord = await startFakeDiscord({ token: 'fake-discord-bot-token-0123456789' });
  gateway = await startTestGateway({
    modelBaseUrl: model.baseUrl,
    env: {
      NEXUS_DISCORD_BOT_TOKEN: discord.token,
      NEXUS_DISCORD_API_URL: discord.restApi,
      NEXUS_DISCORD_DM_POLICY: 'open',
      NEXUS_GROUP_ALLOWLIST: 'discord:*',
    },
  });
  await discord.waitFor(() => discord.isGatewayLive(), { timeoutMs: 8_000 });
});
afterAll(async () => {
  await gateway?.dispose();
  await Promise.all([discord?.close(), model?.close()]);
});

/** The bot's messages in a channel, once there are at least `count` and core is idle. */
async function repliesIn(channelId: string, count: number) {
  const inChannel = () => discord.sentMessages.filter((message) => message.channelId === channelId);
  await discord.waitFor(() => inChannel().length >= count, { timeoutMs: 8_000 });
  await gateway.core.whenIdle();
  return inChannel();
}

/** The nonce each message-creating POST to a channel carried, in order. */
const noncesPostedTo = (channelId: string) =>
  discord.requests
    .filter(
      (request) => request.method === 'POST' && request.path.endsWith(`/channels/${channelId}/messages`),
    )
    .map((request) => (request.body as { nonce?: string }).nonce);

describe('Discord: an edit of the newest message', () => {
  it('is answered once by a new message referencing the edited one; the same dispatch again is not', async () => {
    const mention = `<@${discord.bot.id}>`;
    const turnsBefore = chatTurns(model).length;
    const asked = discord.injectGuildMessage({ content: `${mention} what is 2+2?` });
    const [first] = await repliesIn(asked.channelId, 1);
    expect(first?.content).toContain('what is 2+2?');
    expect(first?.replyToMessageId).toBe(asked.id);

    const edited = discord.editMessage({ id: asked.id, content: `${mention} what is 3+3?` });
    const replies = await repliesIn(asked.channelId, 2);
    const reanswer = replies[1]!;
    expect(reanswer.content).toContain('what is 3+3?');
    expect(reanswer.replyToMessageId).toBe(asked.id);
    // A message of its own, not Discord handing back the first reply for a reused nonce (and the
    // adapter then editing that one): the first reply still says what it said.
    expect(reanswer.id).not.toBe(first?.id);
    expect(replies[0]?.content).toContain('what is 2+2?');
    expect(replies[0]?.content).not.toContain('3+3');
    const nonces = noncesPostedTo(asked.channelId);
    expect(nonces).toHaveLength(2);
    expect(nonces.every((nonce) => typeof nonce === 'string')).toBe(true);
    expect(new Set(nonces).size).toBe(2);
    expect(chatTurns(model)).toHaveLength(turnsBefore + 2);
    expect(lastHistory(model)).toContain('3+3');
    expect(lastHistory(model)).not.toContain('2+2');

    // The same MESSAGE_UPDATE again (as after a resume). Gateway events are handled in order and
    // the conversation's turns too, so a second answer would come before the follow-up's.
    discord.replay(edited.seq);
    discord.injectGuildMessage({ content: `${mention} thanks`, channelId: asked.channelId });
    const after = await repliesIn(asked.channelId, 3);
    await settle();
    expect(discord.sentMessages.filter((message) => message.channelId === asked.channelId)).toHaveLength(3);
    expect(after[2]?.content).toContain('thanks');
    expect(chatTurns(model)).toHaveLength(turnsBefore + 3);
  });
});

describe('Discord: an edit of an older message, and a delete', () => {
  it('notes the older edit without a reply; the next turn reads it', async () => {
    const author = { id: '500000000000000001', username: 'ada' };
    const flight = discord.injectDirectMessage({ content: 'My flight is on Monday', author });
    await repliesIn(flight.channelId, 1);
    discord.injectDirectMessage({ content: 'Pack light', author });
    await repliesIn(flight.channelId, 2);

    discord.editMessage({ id: flight.id, content: 'My flight is on Tuesday' });
    discord.injectDirectMessage({ content: 'When do I fly?', author });
    const replies = await repliesIn(flight.channelId, 3);
    await settle();
    expect(discord.sentMessages.filter((message) => message.channelId === flight.channelId)).toHaveLength(3);
    expect(replies[2]?.content).toContain('When do I fly?');
    const history = lastHistory(model);
    expect(history).toContain('user: My flight is on Tuesday\nassistant: Echo: My flight is on Monday');
    expect(history).toMatch(correctionNotePattern('My flight is on Monday', 'My flight is on Tuesday'));
    expect(history).toMatch(/user: When do I fly\?$/u);
  });

  it('takes a deleted message and its answer out of the next request, and sends nothing', async () => {
    const author = { id: '500000000000000002', username: 'bea' };
    const secret = discord.injectDirectMessage({ content: 'My PIN is 4321', author });
    await repliesIn(secret.channelId, 1);
    discord.injectDirectMessage({ content: 'Nice weather', author });
    await repliesIn(secret.channelId, 2);

    discord.deleteMessage({ id: secret.id });
    discord.injectDirectMessage({ content: 'What did I tell you?', author });
    const replies = await repliesIn(secret.channelId, 3);
    await settle();
    expect(discord.sentMessages.filter((message) => message.channelId === secret.channelId)).toHaveLength(3);
    expect(replies[2]?.content).toContain('What did I tell you?');
    const history = lastHistory(model);
    expect(history).not.toContain('4321');
    expect(history).toBe('user: Nice weather\nassistant: Echo: Nice weather\nuser: What did I tell you?');
  });
});
