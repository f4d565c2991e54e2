import { hasBalancedFences } from '@nexus/channel-kit';
import type { NexusCore } from '@nexus/core';
import { type ScriptedCore, startScriptedCore } from '@nexus/core/testing';
import type { ChannelAdapter, IntentInput } from '@nexus/protocol';
import { type FakeDiscord, startFakeDiscord } from '@nexus/testkit/discord';
import type { ScriptedModelServer } from '@nexus/testkit/llm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestChannel } from './testing/discord-harness.ts';

let fake: FakeDiscord;
let scripted: ScriptedCore;
let model: ScriptedModelServer;
let core: NexusCore;
let channel: ChannelAdapter;
/** Every intent the adapter handed to core, to prove de-duplication happens in the adapter. */
let intake: IntentInput[];

beforeEach(async () => {
  fake = await startFakeDiscord();
  scripted = await startScriptedCore();
  ({ model, core } = scripted);
  channel = createTestChannel(fake);
  core.registerChannel(channel);
  intake = [];
  await channel.start({
    sink: (intent) => {
      intake.push(intent);
      return core.intake(intent);
    },
  });
});

afterEach(async () => {
  await core.shutdown({ deadlineMs: 2000 });
  await channel.stop();
  await fake.close();
  await model.close();
});

const lastUserText = (index: number) => scripted.lastUserText(index);

describe('discord channel through the core with the scripted model', () => {
  it('answers a guild mention as a reply to it, and a DM in the DM', async () => {
    const question = fake.injectGuildMessage({ content: `<@${fake.bot.id}> what is two plus two?` });
    const guildReply = await fake.waitFor(() =>
      fake.sentMessages.find((message) => message.replyToMessageId === question.id),
    );
    await core.whenIdle();
    expect(lastUserText(0)).toBe('what is two plus two?');
    expect(guildReply.content).toBe('Echo: what is two plus two?');
    expect(guildReply.channelId).toBe(fake.guild.textChannelId);

    const direct = fake.injectDirectMessage({ content: 'and in private?' });
    const directReply = await fake.waitFor(() =>
      fake.sentMessages.find((message) => message.channelId === direct.channelId),
    );
    await core.whenIdle();
    expect(directReply.content).toBe('Echo: and in private?');
    expect(directReply.replyToMessageId).toBeUndefined();
  });

  it('does not answer guild messages that do not address the bot', async () => {
    fake.injectGuildMessage({ content: 'talking among ourselves' });
    const direct = fake.injectDirectMessage({ content: 'ping' });
    await fake.waitFor(() => fake.sentMessages.find((message) => message.channelId === direct.channelId));
    await core.whenIdle();
    expect(model.chatRequests()).toHaveLength(1);
    expect(fake.sentMessages).toHaveLength(1);
  });

  it('delivers a long model answer with @everyone in ≤2000-character messages that ping nobody', async () => {
    const code = Array.from({ length: 120 }, (_, line) => `print("row ${line}")`).join('\n');
    const text = `@everyone here is the script:\n\n\`\`\`python\n${code}\n\`\`\`\n\nRun it and tell <@&${fake.guild.otherRoleId}>.`;
    model.enqueue({ text });
    fake.injectGuildMessage({ content: `<@${fake.bot.id}> write me a long script` });
    await fake.waitFor(() =>
      fake.sentMessages.some((message) => message.content.includes('Run it and tell')),
    );
    await core.whenIdle();

    const posts = fake.requests.filter(
      (request) => request.method === 'POST' && request.path.endsWith('/messages'),
    );
    expect(posts.length).toBeGreaterThanOrEqual(2);
    for (const post of posts) expect(post.body).toMatchObject({ allowed_mentions: { parse: [] } });
    for (const edit of fake.requests.filter((request) => request.method === 'PATCH')) {
      expect(edit.body).toMatchObject({ allowed_mentions: { parse: [] } });
    }
    for (const message of fake.sentMessages) {
      expect(message.content.length).toBeLessThanOrEqual(2000);
      expect(hasBalancedFences(message.content)).toBe(true);
      expect(message.pings).toMatchObject({ everyone: false, userIds: [], roleIds: [] });
    }
    expect(fake.sentMessages.map((message) => message.content).join('\n')).toContain('print("row 119")');
  });

  it('gives a replayed MESSAGE_CREATE after a gateway drop no second reply', async () => {
    const question = fake.injectGuildMessage({ content: `<@${fake.bot.id}> only once` });
    await fake.waitFor(() => fake.sentMessages.find((message) => message.replyToMessageId === question.id));
    await core.whenIdle();

    fake.dropConnection();
    await fake.waitFor(() => fake.gatewayStats.resumes === 1 && fake.isGatewayLive());
    fake.replay(question.seq);
    const after = fake.injectDirectMessage({ content: 'after the drop' });
    await fake.waitFor(() => fake.sentMessages.find((message) => message.channelId === after.channelId));
    await core.whenIdle();

    expect(intake.filter((intent) => intent.id === question.id)).toHaveLength(1);
    expect(fake.sentMessages.filter((message) => message.replyToMessageId === question.id)).toHaveLength(1);
    expect(model.chatRequests()).toHaveLength(2);
  });

  it('waits out a 429 on the reply and sends it once', async () => {
    const direct = fake.injectDirectMessage({ content: 'rate limited?' });
    fake.rateLimitNext({
      method: 'POST',
      path: `/channels/${direct.channelId}/messages`,
      retryAfterSeconds: 1,
    });
    await fake.waitFor(() => fake.sentMessages.find((message) => message.channelId === direct.channelId), {
      timeoutMs: 5000,
    });
    await core.whenIdle();
    const posts = fake.requests.filter(
      (request) => request.path === `/channels/${direct.channelId}/messages`,
    );
    expect(posts.map((request) => request.status)).toEqual([429, 200]);
    expect((posts[1]?.at ?? 0) - (posts[0]?.at ?? 0)).toBeGreaterThanOrEqual(950);
    expect(fake.sentMessages.filter((message) => message.channelId === direct.channelId)).toHaveLength(1);
  });
});
