import { hasBalancedFences } from '@nexus/channel-kit';
import type { ChannelAdapter, ConversationRef, IntentInput } from '@nexus/protocol';
import { type FakeDiscord, startFakeDiscord } from '@nexus/testkit/discord';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  conversationFor,
  createRecordingSink,
  createTestChannel,
  type RecordingSink,
  replyEvents,
  textReply,
} from './testing/discord-harness.ts';

let fake: FakeDiscord;
let channel: ChannelAdapter;
let recording: RecordingSink;

beforeEach(async () => {
  fake = await startFakeDiscord();
  recording = createRecordingSink();
  channel = createTestChannel(fake, { typingIntervalMs: 60 });
  await channel.start({ sink: recording.sink });
});

afterEach(async () => {
  await channel.stop();
  await fake.close();
});

async function guildIntent(): Promise<IntentInput> {
  const before = recording.intents.length;
  fake.injectGuildMessage({ content: `<@${fake.bot.id}> question` });
  return fake.waitFor(() => recording.intents.length > before && recording.intents.at(-1));
}

function messagePosts(channelId: string) {
  return fake.requests.filter(
    (request) => request.method === 'POST' && request.path === `/channels/${channelId}/messages`,
  );
}

describe('discord channel delivery', () => {
  it('replies in a guild by referencing the message, and in a DM without a reference', async () => {
    const guild = conversationFor(await guildIntent());
    await channel.deliver({ conversation: guild, events: replyEvents(...textReply('Hello **there**')) });
    fake.injectDirectMessage({ content: 'hi' });
    const direct = conversationFor(await fake.waitFor(() => recording.intents[1]));
    await channel.deliver({ conversation: direct, events: replyEvents(...textReply('Hi in private')) });

    const [guildReply, directReply] = fake.sentMessages;
    expect(guildReply).toMatchObject({ content: 'Hello **there**', replyToMessageId: guild.intentId });
    expect(guildReply?.pings).toEqual({ everyone: false, userIds: [], roleIds: [], repliedUser: true });
    expect(directReply).toMatchObject({ channelId: direct.conversationId, content: 'Hi in private' });
    expect(directReply?.replyToMessageId).toBeUndefined();
    expect(messagePosts(guild.conversationId)[0]?.body).toMatchObject({
      message_reference: { message_id: guild.intentId, fail_if_not_exists: false },
    });
  });

  it('never lets model text ping @everyone, roles or users', async () => {
    const conversation = conversationFor(await guildIntent());
    const text = `@everyone @here look, <@&${fake.guild.otherRoleId}> and <@${fake.defaultUser.id}>!`;
    await channel.deliver({ conversation, events: replyEvents(...textReply(text)) });
    const [request] = messagePosts(conversation.conversationId);
    expect(request?.body).toMatchObject({ allowed_mentions: { parse: [], replied_user: true } });
    const [sent] = fake.sentMessages;
    expect(sent?.pings).toEqual({ everyone: false, userIds: [], roleIds: [], repliedUser: true });
  });

  it('splits a long reply into messages of at most 2000 characters with balanced code fences', async () => {
    const conversation = conversationFor(await guildIntent());
    const code = Array.from(
      { length: 80 },
      (_, line) => `  console.log("line ${line} of the example");`,
    ).join('\n');
    const prose = Array.from(
      { length: 30 },
      (_, index) => `Sentence number ${index} explains a detail.`,
    ).join(' ');
    const text = `${prose}\n\n\`\`\`ts\n${code}\n\`\`\`\n\n${prose}`;
    expect(text.length).toBeGreaterThan(5000);
    await channel.deliver({ conversation, events: replyEvents(...textReply(text)) });

    const contents = fake.sentMessages.map((message) => message.content);
    expect(contents.length).toBeGreaterThanOrEqual(3);
    for (const content of contents) {
      expect(content.length).toBeLessThanOrEqual(2000);
      expect(hasBalancedFences(content)).toBe(true);
    }
    expect(contents.join('\n')).toContain('line 79 of the example');
    expect(fake.sentMessages[0]?.replyToMessageId).toBe(conversation.intentId);
    expect(fake.sentMessages.slice(1).every((message) => message.replyToMessageId === undefined)).toBe(true);
  });

  it('streams by editing the reply in place, keeping typing alive while the agent works', async () => {
    const conversation = conversationFor(await guildIntent());
    const typingPosts = () =>
      fake.requests.filter((request) => request.path === `/channels/${conversation.conversationId}/typing`);
    const replyId = 'streamed';
    await channel.deliver({
      conversation,
      events: replyEvents(
        { type: 'typing' },
        // The agent thinks for a while: typing is refreshed, nothing is sent yet.
        () => fake.waitFor(() => typingPosts().length >= 3).then(() => undefined),
        { type: 'reply.start', replyId },
        { type: 'reply.delta', replyId, text: 'Hello' },
        () => fake.waitFor(() => fake.sentMessages[0]).then(() => undefined),
        { type: 'reply.delta', replyId, text: ' world' },
        () => fake.waitFor(() => fake.sentMessages[0]?.history.length === 2).then(() => undefined),
        { type: 'reply.end', replyId, text: 'Hello world, done.' },
      ),
    });
    expect(fake.sentMessages).toHaveLength(1);
    expect(fake.sentMessages[0]?.history).toEqual(['Hello', 'Hello world', 'Hello world, done.']);
    const firstMessageAt = messagePosts(conversation.conversationId)[0]?.at ?? 0;
    expect(typingPosts().filter((request) => request.at <= firstMessageAt).length).toBeGreaterThanOrEqual(3);
    const edits = fake.requests.filter((request) => request.method === 'PATCH');
    expect(edits).toHaveLength(2);
    for (const edit of edits) expect(edit.body).toMatchObject({ allowed_mentions: { parse: [] } });
  });

  it('shows a status line until the reply arrives, and turns an error into a short notice', async () => {
    const conversation = conversationFor(await guildIntent());
    await channel.deliver({
      conversation,
      events: replyEvents(
        { type: 'status', text: 'Restoring your preferences…' },
        () => fake.waitFor(() => fake.sentMessages[0]).then(() => undefined),
        ...textReply('Here you go.'),
      ),
    });
    expect(fake.sentMessages[0]?.history).toEqual(['*Restoring your preferences…*', 'Here you go.']);

    // Another message's turn: a second delivery for the same intent would be a replay, and
    // reuses the first message (nonce) instead of posting.
    await channel.deliver({
      conversation: conversationFor(await guildIntent()),
      events: replyEvents({
        type: 'error',
        code: 'model_unavailable',
        message: 'The model is not reachable right now.',
        retryable: true,
      }),
    });
    expect(fake.sentMessages[1]?.content).toBe('⚠️ The model is not reachable right now.');
  });

  it('waits Retry-After on a 429 and sends the message once', async () => {
    const conversation = conversationFor(await guildIntent());
    const path = `/channels/${conversation.conversationId}/messages`;
    fake.rateLimitNext({ method: 'POST', path, retryAfterSeconds: 1 });
    await channel.deliver({ conversation, events: replyEvents(...textReply('after the limit')) });
    const attempts = messagePosts(conversation.conversationId);
    expect(attempts.map((request) => request.status)).toEqual([429, 200]);
    expect((attempts[1]?.at ?? 0) - (attempts[0]?.at ?? 0)).toBeGreaterThanOrEqual(950);
    expect(fake.sentMessages.map((message) => message.content)).toEqual(['after the limit']);
  });

  it('reports a refusal from Discord as a non-retryable error', async () => {
    const conversation: ConversationRef = {
      channel: 'discord',
      conversationId: '999999999999999999',
      kind: 'group',
      intentId: '1',
      userId: 'discord:1',
      senderPlatformId: '1',
    };
    await expect(
      channel.deliver({ conversation, events: replyEvents(...textReply('nowhere')) }),
    ).rejects.toMatchObject({ name: 'DiscordChannelError', code: 'channel_unavailable', retryable: false });
  });
});
