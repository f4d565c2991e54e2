import type { ChannelAdapter } from '@nexus/protocol';
import { type FakeDiscord, startFakeDiscord } from '@nexus/testkit/discord';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRecordingSink, createTestChannel, type RecordingSink } from './testing/discord-harness.ts';

let fake: FakeDiscord;
let channel: ChannelAdapter;
let recording: RecordingSink;

beforeEach(async () => {
  fake = await startFakeDiscord();
  recording = createRecordingSink();
  channel = createTestChannel(fake);
  await channel.start({ sink: recording.sink });
});

afterEach(async () => {
  await channel.stop();
  await fake.close();
});

/** Events arrive in order, so once this marker is in, everything injected before it was handled. */
async function drain(): Promise<void> {
  const marker = fake.injectDirectMessage({ content: `marker ${Math.random()}` });
  await fake.waitFor(() => recording.intents.some((intent) => intent.id === marker.id));
  recording.intents.splice(
    recording.intents.findIndex((intent) => intent.id === marker.id),
    1,
  );
}

describe('discord channel intake', () => {
  it('turns a guild mention into an intent without the mention, and marks it addressed', async () => {
    const injected = fake.injectGuildMessage({ content: `<@${fake.bot.id}>   what is   the time?` });
    const intent = await fake.waitFor(() => recording.intents[0]);
    expect(intent).toMatchObject({
      id: injected.id,
      channel: 'discord',
      conversation: { id: fake.guild.textChannelId, kind: 'group', title: 'Fake Guild #general' },
      sender: { platformId: fake.defaultUser.id, displayName: 'Alice' },
      userId: `discord:${fake.defaultUser.id}`,
      text: 'what is the time?',
      attachments: [],
      mentionsAssistant: true,
    });
    expect(Number.isNaN(Date.parse(String(intent.receivedAt)))).toBe(false);
  });

  it("counts the bot's managed role and a reply to the bot as addressing it, and keeps other mentions readable", async () => {
    fake.injectGuildMessage({ content: `<@&${fake.guild.botRoleId}> summarise please` });
    const botMessage = fake.injectGuildMessage({ content: `<@${fake.bot.id}> first` });
    await fake.waitFor(() => recording.intents.length === 2);
    // A reply to something the bot said, quoting a person by mention.
    const bob = { id: '222222222222222222', username: 'bob', globalName: 'Bob' };
    fake.injectGuildMessage({ content: 'hi', author: bob });
    await drain();
    const reply = fake.injectGuildMessage({ content: 'ask <@222222222222222222>' });
    await drain();
    expect(recording.intents.map((intent) => intent.id)).not.toContain(reply.id);

    const answered = fake.sentMessages.length;
    await channel.deliver({
      conversation: {
        channel: 'discord',
        conversationId: fake.guild.textChannelId,
        kind: 'group',
        intentId: botMessage.id,
        userId: 'discord:x',
        senderPlatformId: fake.defaultUser.id,
      },
      events: (async function* () {
        yield { type: 'reply.end' as const, replyId: 'r', text: 'the answer' };
      })(),
    });
    const botReply = fake.sentMessages[answered];
    if (!botReply) throw new Error('no bot reply');
    const followUp = fake.injectGuildMessage({
      content: 'and <@222222222222222222> agrees',
      replyToMessageId: botReply.id,
    });
    const [roleIntent, , replyIntent] = await fake.waitFor(() =>
      recording.intents.length === 3 ? recording.intents : undefined,
    );
    expect(roleIntent).toMatchObject({ text: 'summarise please', mentionsAssistant: true });
    expect(replyIntent).toMatchObject({
      id: followUp.id,
      text: 'and @Bob agrees',
      replyTo: botReply.id,
      mentionsAssistant: true,
    });
  });

  it('ignores unaddressed guild messages, other bots and its own echoes, but takes every DM', async () => {
    fake.injectGuildMessage({ content: 'just chatting with friends' });
    fake.injectGuildMessage({
      content: `<@${fake.bot.id}> I am a bot`,
      author: { id: '333333333333333333', username: 'otherbot', bot: true },
    });
    const direct = fake.injectDirectMessage({ content: 'hello in private' });
    const intent = await fake.waitFor(() => recording.intents[0]);
    await drain();
    expect(recording.intents).toHaveLength(1);
    expect(intent).toMatchObject({
      id: direct.id,
      conversation: { id: direct.channelId, kind: 'direct' },
      text: 'hello in private',
      mentionsAssistant: true,
    });
    // The bot's own message comes back as MESSAGE_CREATE from the gateway and is ignored.
    await channel.deliver({
      conversation: {
        channel: 'discord',
        conversationId: direct.channelId,
        kind: 'direct',
        intentId: direct.id,
        userId: 'discord:x',
        senderPlatformId: fake.defaultUser.id,
      },
      events: (async function* () {
        yield { type: 'reply.end' as const, replyId: 'r', text: `<@${fake.bot.id}> talking to myself` };
      })(),
    });
    await drain();
    expect(recording.intents).toHaveLength(1);
  });

  it('normalises threads and attachments (image, voice message, document)', async () => {
    fake.injectGuildMessage({ content: `<@${fake.bot.id}> in a thread`, channelId: fake.guild.threadId });
    fake.injectDirectMessage({
      content: '',
      attachments: [
        { filename: 'cat.png', contentType: 'image/png', size: 2048 },
        { filename: 'voice-message.ogg', contentType: 'audio/ogg', voice: true },
        { filename: 'notes.pdf', contentType: 'application/pdf' },
      ],
    });
    const [thread, direct] = await fake.waitFor(() =>
      recording.intents.length === 2 ? recording.intents : undefined,
    );
    expect(thread?.conversation).toEqual({
      id: fake.guild.threadId,
      kind: 'thread',
      title: 'Fake Guild a thread',
    });
    expect(direct?.text).toBe('');
    expect(direct?.attachments?.map((attachment) => attachment.kind)).toEqual(['image', 'voice', 'document']);
    expect(direct?.attachments?.[0]).toMatchObject({
      name: 'cat.png',
      mimeType: 'image/png',
      sizeBytes: 2048,
    });
    expect(direct?.attachments?.[0]?.url).toMatch(/^https:\/\//);
  });

  it('resumes after the gateway drops, and a replayed MESSAGE_CREATE reaches the sink once', async () => {
    const first = fake.injectGuildMessage({ content: `<@${fake.bot.id}> once please` });
    await fake.waitFor(() => recording.intents.length === 1);
    expect(channel.health().status).toBe('up');

    fake.dropConnection();
    const missed = fake.injectDirectMessage({ content: 'sent during the outage' });
    await fake.waitFor(() => fake.gatewayStats.resumes === 1 && fake.isGatewayLive());
    await fake.waitFor(() => recording.intents.some((intent) => intent.id === missed.id));
    await fake.waitFor(() => channel.health().status === 'up');

    fake.replay(first.seq);
    await drain();
    expect(recording.intents.filter((intent) => intent.id === first.id)).toHaveLength(1);
    expect(fake.gatewayStats.identifies).toBe(1);
  });
});
