import type { ChannelAdapter, ChannelHealth } from '@nexus/protocol';
import { startFakeDiscord } from '@nexus/testkit/discord';
import { afterEach, describe, expect, it } from 'vitest';
import {
  conversationFor,
  createRecordingSink,
  createTestChannel,
  replyEvents,
  textReply,
} from './testing/discord-harness.ts';

const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setUp(fakeOptions: Parameters<typeof startFakeDiscord>[0] = {}) {
  const fake = await startFakeDiscord(fakeOptions);
  cleanups.push(() => fake.close());
  return fake;
}

function track(channel: ChannelAdapter): ChannelAdapter {
  cleanups.push(() => channel.stop());
  return channel;
}

describe('discord gateway connection', () => {
  it('reports stopped, up, reconnecting and stopped again as the gateway changes', async () => {
    const fake = await setUp();
    const channel = track(createTestChannel(fake));
    expect(channel.health()).toEqual({ status: 'stopped' });
    await channel.start({ sink: createRecordingSink().sink });
    expect(channel.health()).toEqual({ status: 'up' });

    const seen = new Set<ChannelHealth['status']>();
    const sampler = setInterval(() => seen.add(channel.health().status), 2);
    fake.dropConnection({ code: 4000 });
    await fake.waitFor(() => fake.gatewayStats.resumes === 1 && fake.isGatewayLive());
    await fake.waitFor(() => channel.health().status === 'up');
    clearInterval(sampler);
    expect(seen.has('connecting')).toBe(true);

    await channel.stop();
    expect(channel.health()).toEqual({ status: 'stopped' });
  });

  it('refuses to start with a token Discord rejects', async () => {
    const fake = await setUp();
    const channel = track(createTestChannel(fake, { token: 'wrong-token' }));
    await expect(channel.start({ sink: createRecordingSink().sink })).rejects.toMatchObject({
      code: 'unauthorized',
      retryable: false,
    });
    expect(channel.health().status).toBe('down');
  });

  it('refuses to start, saying which switch to turn on, when Discord closes with 4014 (Message Content not enabled)', async () => {
    const fake = await setUp({ privilegedIntents: ['guildMembers'] });
    const channel = track(createTestChannel(fake));
    const started = channel.start({ sink: createRecordingSink().sink });
    await expect(started).rejects.toMatchObject({
      code: 'not_configured',
      retryable: false,
      discordCode: 4014,
    });
    await expect(started).rejects.toThrow(/Message Content Intent.*Privileged Gateway Intents/);
    expect(channel.health().status).toBe('down');
    expect(fake.gatewayStats.identifies).toBe(1);

    // Once the owner enables it, a new start connects.
    fake.setPrivilegedIntents(['messageContent']);
    const again = track(createTestChannel(fake));
    await again.start({ sink: createRecordingSink().sink });
    expect(again.health()).toEqual({ status: 'up' });
  });

  it('leaves a healthy but quiet connection alone: the watchdog probe is answered', async () => {
    const fake = await setUp({ heartbeatIntervalMs: 150 });
    const channel = track(createTestChannel(fake, { watchdogMs: 300 }));
    await channel.start({ sink: createRecordingSink().sink });
    await fake.waitFor(
      () => fake.gatewayLog.filter((entry) => entry.direction === 'received' && entry.op === 8).length >= 2,
    );
    expect(fake.gatewayStats.identifies).toBe(1);
    expect(fake.gatewayStats.connections).toBe(1);
    expect(channel.health().status).toBe('up');
  });

  it('recreates the client when events stop while heartbeats are still acknowledged', async () => {
    const fake = await setUp({ heartbeatIntervalMs: 150 });
    const recording = createRecordingSink();
    const channel = track(createTestChannel(fake, { watchdogMs: 300 }));
    await channel.start({ sink: recording.sink });
    const before = fake.injectDirectMessage({ content: 'before the outage' });
    await fake.waitFor(() => recording.intents.length === 1);

    fake.deafen({ keepHeartbeats: true });
    fake.injectDirectMessage({ content: 'lost in the outage' });
    await fake.waitFor(() => fake.gatewayStats.identifies === 2 && fake.isGatewayLive());
    await fake.waitFor(() => channel.health().status === 'up');

    // The replayed message id is known to the adapter even though the client is new.
    fake.replay(before.seq);
    const after = fake.injectDirectMessage({ content: 'after the outage' });
    await fake.waitFor(() => recording.intents.some((intent) => intent.id === after.id));
    expect(recording.intents.filter((intent) => intent.id === before.id)).toHaveLength(1);
  });

  it('registers slash commands at start and answers one through the interaction', async () => {
    const fake = await setUp();
    const recording = createRecordingSink();
    const channel = track(createTestChannel(fake, { slashCommands: true }));
    await channel.start({ sink: recording.sink });
    expect(fake.registeredCommands[0]?.commands.map((command) => command.name)).toEqual([
      'new',
      'memories',
      'forget-me',
    ]);

    const interaction = fake.injectSlashCommand({ name: 'memories' });
    const intent = await fake.waitFor(() => recording.intents[0]);
    expect(intent).toMatchObject({
      id: `interaction:${interaction.id}`,
      text: '/memories',
      mentionsAssistant: true,
      conversation: { id: fake.guild.textChannelId, kind: 'group' },
    });
    expect(fake.interactionCallbacks[0]?.body).toEqual({ type: 5, data: { flags: 64 } });

    await channel.deliver({
      conversation: conversationFor(intent),
      events: replyEvents(...textReply('You like **tea**.')),
    });
    expect(fake.sentMessages[0]).toMatchObject({
      interactionToken: interaction.token,
      content: 'You like **tea**.',
    });
    const patch = fake.requests.find((request) => request.path.endsWith('/messages/@original'));
    expect(patch?.authorization).toBeUndefined();
    expect(patch?.body).toMatchObject({ allowed_mentions: { parse: [] } });
    // Editing the deferred response may not set EPHEMERAL (the fake refuses it, as Discord does):
    // the deferral above already made the answer private.
    expect(patch?.body).not.toHaveProperty('flags');
    expect(patch?.status).toBe(200);
  });

  it('answers a slash command that core rejects instead of leaving it "thinking"', async () => {
    const fake = await setUp();
    const channel = track(createTestChannel(fake, { slashCommands: true }));
    await channel.start({
      sink: async () => ({ status: 'rejected', code: 'rate_limited', message: 'Slow down a little.' }),
    });
    fake.injectSlashCommand({ name: 'new', direct: true });
    const notice = await fake.waitFor(() => fake.sentMessages[0]);
    expect(notice.content).toBe('⚠️ Slow down a little.');
    expect(fake.interactionCallbacks[0]?.body).toEqual({ type: 5 });
  });
});
