import { Client, Events, GatewayIntentBits, type Interaction, type Message, Partials } from 'discord.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeDiscord, startFakeDiscord } from './fake-discord.ts';

let fake: FakeDiscord;
let client: Client;
let received: Message[];

beforeEach(async () => {
  fake = await startFakeDiscord();
  received = [];
  client = new Client({
    intents: [
      GatewayIntentBits.Guilds,
      GatewayIntentBits.GuildMessages,
      GatewayIntentBits.DirectMessages,
      GatewayIntentBits.MessageContent,
    ],
    partials: [Partials.Channel],
    rest: { api: fake.restApi },
  });
  client.on(Events.MessageCreate, (message) => {
    received.push(message);
  });
  const ready = new Promise((resolve) => client.once(Events.ClientReady, resolve));
  await client.login(fake.token);
  await ready;
});

afterEach(async () => {
  await client.destroy();
  await fake.close();
});

describe('fake Discord with the unmodified discord.js Client', () => {
  it('logs in, caches the guild and delivers guild, thread and DM messages with their details', async () => {
    expect(client.user?.id).toBe(fake.bot.id);
    const guild = client.guilds.cache.get(fake.guild.id);
    expect(guild?.roles.botRoleFor(fake.bot.id)?.id).toBe(fake.guild.botRoleId);

    fake.injectGuildMessage({ content: `<@${fake.bot.id}> hello <@&${fake.guild.otherRoleId}>` });
    fake.injectGuildMessage({ content: 'in a thread', channelId: fake.guild.threadId });
    fake.injectDirectMessage({
      content: 'a DM',
      attachments: [{ filename: 'cat.png', contentType: 'image/png', size: 10 }],
    });
    await fake.waitFor(() => received.length === 3);
    const [guildMessage, threadMessage, directMessage] = received;
    expect(guildMessage?.mentions.users.has(fake.bot.id)).toBe(true);
    expect(guildMessage?.mentions.roles.has(fake.guild.otherRoleId)).toBe(true);
    expect(guildMessage?.member?.displayName).toBe('Alice');
    expect(threadMessage?.channel.isThread()).toBe(true);
    expect(directMessage?.channel.isDMBased()).toBe(true);
    expect(directMessage?.attachments.first()?.contentType).toBe('image/png');
  });

  it('records replies with their allowed_mentions and who Discord would ping', async () => {
    const injected = fake.injectGuildMessage({ content: 'hi' });
    await fake.waitFor(() => received.length === 1);
    await received[0]?.reply({
      content: '@everyone look',
      allowedMentions: { parse: [], repliedUser: false },
    });
    await received[0]?.reply({ content: '@everyone again' });
    const [safe, unsafe] = fake.sentMessages;
    expect(safe?.replyToMessageId).toBe(injected.id);
    expect(safe?.pings).toEqual({ everyone: false, userIds: [], roleIds: [], repliedUser: false });
    expect(unsafe?.pings.everyone).toBe(true);
    const post = fake.requests.find(
      (request) => request.method === 'POST' && request.path.endsWith('/messages'),
    );
    expect(post?.body).toMatchObject({ allowed_mentions: { parse: [], replied_user: false } });
  });

  it('answers a 429 with Retry-After, and the client sends once more after waiting', async () => {
    const channelPath = `/channels/${fake.guild.textChannelId}/messages`;
    fake.rateLimitNext({ method: 'POST', path: channelPath, retryAfterSeconds: 0.3 });
    const channel = client.channels.cache.get(fake.guild.textChannelId);
    if (!channel?.isSendable()) throw new Error('channel not sendable');
    await channel.send('after the limit');
    const attempts = fake.requests.filter((request) => request.path === channelPath);
    expect(attempts.map((request) => request.status)).toEqual([429, 200]);
    expect((attempts[1]?.at ?? 0) - (attempts[0]?.at ?? 0)).toBeGreaterThanOrEqual(250);
    expect(fake.sentMessages).toHaveLength(1);
  });

  it('lets the client resume after a drop and replays what it missed', async () => {
    fake.dropConnection();
    const missed = fake.injectGuildMessage({ content: 'sent while disconnected' });
    await fake.waitFor(() => fake.gatewayStats.resumes === 1 && fake.isGatewayLive());
    await fake.waitFor(() => received.some((message) => message.id === missed.id));
    expect(fake.gatewayStats.identifies).toBe(1);
  });

  it('makes the client identify again when the resume is refused', async () => {
    fake.setResumeOutcome('invalid-session');
    fake.dropConnection({ code: 4000 });
    // @discordjs/ws keeps Discord's 5 s between identifies, so this path takes about 5 s.
    await fake.waitFor(() => fake.gatewayStats.identifies === 2 && fake.isGatewayLive(), {
      timeoutMs: 10_000,
    });
    fake.injectDirectMessage({ content: 'after re-identify' });
    await fake.waitFor(() => received.length === 1);
  });

  it('registers slash commands and takes interaction replies', async () => {
    await client.application?.commands.set([{ name: 'new', description: 'Start over' }]);
    expect(fake.registeredCommands[0]?.commands[0]?.name).toBe('new');
    const interactions: Interaction[] = [];
    client.on(Events.InteractionCreate, (interaction) => {
      interactions.push(interaction);
    });
    fake.injectSlashCommand({ name: 'new' });
    const interaction = await fake.waitFor(() => interactions[0]);
    if (!interaction.isChatInputCommand()) throw new Error('expected a chat input command');
    await interaction.deferReply();
    await interaction.editReply('started over');
    expect(fake.interactionCallbacks[0]?.body).toMatchObject({ type: 5 });
    expect(fake.sentMessages[0]?.content).toBe('started over');
  });

  it('pages channel history like Discord: after/before anchors, newest first, limit 1-100', async () => {
    const ids = ['one', 'two', 'three', 'four'].map((content) => fake.injectGuildMessage({ content }).id);
    const channel = await client.channels.fetch(fake.guild.textChannelId);
    if (!channel?.isTextBased()) throw new Error('expected a text channel');
    const after = await channel.messages.fetch({ after: ids[0]!, limit: 2, cache: false });
    expect([...after.values()].map((message) => message.content)).toEqual(['three', 'two']);
    const before = await channel.messages.fetch({ before: ids[3]!, limit: 2, cache: false });
    expect([...before.values()].map((message) => message.content)).toEqual(['three', 'two']);
    const latest = await channel.messages.fetch({ limit: 100, cache: false });
    expect([...latest.values()].map((message) => message.content)).toEqual(['four', 'three', 'two', 'one']);
    const tooMany = await fetch(
      `${fake.restApi}/v10/channels/${fake.guild.textChannelId}/messages?limit=101`,
      {
        headers: { authorization: `Bot ${fake.token}` },
      },
    );
    expect(tooMany.status).toBe(400);
  });

  it('returns the message already created for an enforced nonce instead of creating another', async () => {
    const post = (nonce: string, enforce: boolean) =>
      fetch(`${fake.restApi}/v10/channels/${fake.guild.textChannelId}/messages`, {
        method: 'POST',
        headers: { authorization: `Bot ${fake.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ content: `nonce ${nonce}`, nonce, enforce_nonce: enforce }),
      }).then((response) => response.json() as Promise<{ id: string }>);
    const first = await post('reply-1:0', true);
    const again = await post('reply-1:0', true);
    const unenforced = await post('reply-1:0', false);
    expect(again.id).toBe(first.id);
    expect(unenforced.id).not.toBe(first.id);
    expect(fake.sentMessages.filter((message) => message.content === 'nonce reply-1:0')).toHaveLength(2);
  });
});
