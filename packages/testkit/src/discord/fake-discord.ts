import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type FakeAttachment,
  type FakeStickerItem,
  type FakeUser,
  memberPayload,
  userPayload,
} from './discord-fixtures.ts';
import { createFakeDiscordCdn } from './fake-discord-cdn.ts';
import {
  createFakeGateway,
  type GatewayLogEntry,
  type GatewayStats,
  type ResumeOutcome,
} from './fake-discord-gateway.ts';
import {
  createFakeDiscordRest,
  deletePayloadOf,
  type FakeDiscordMessage,
  type RateLimitInjection,
  type RecordedDiscordRequest,
  type RegisteredCommand,
} from './fake-discord-rest.ts';
import { createFakeDiscordWorld, type FakeGuild } from './fake-discord-world.ts';
import type { PrivilegedIntent } from './gateway-intents.ts';

export interface FakeDiscordOptions {
  /** The bot token the fake accepts (REST `Authorization: Bot …` and gateway IDENTIFY/RESUME). */
  token?: string;
  botUsername?: string;
  /** HELLO's heartbeat interval; large by default so tests stay quiet. */
  heartbeatIntervalMs?: number;
  now?: () => number;
  /**
   * Privileged intents enabled for the application in the Developer Portal. Default: all three.
   * An IDENTIFY asking for one not listed is closed with 4014 Disallowed intent(s), as Discord does.
   */
  privilegedIntents?: readonly PrivilegedIntent[];
}

export interface InjectedMessage {
  id: string;
  channelId: string;
  /** Gateway sequence of the MESSAGE_CREATE, for `replay`. */
  seq: number;
}

export interface InjectedInteraction {
  id: string;
  token: string;
  channelId: string;
  seq: number;
}

/**
 * A local Discord (REST + gateway) that the unmodified discord.js Client connects to with
 * `rest: { api: fake.restApi }`. It holds one guild (text channel, thread, the bot's managed role),
 * DMs, a request log with bodies, and controls for drops, replays, silence and 429s.
 */
export interface FakeDiscord {
  /** `http://127.0.0.1:PORT/api`, for discord.js `rest.api`. */
  readonly restApi: string;
  readonly token: string;
  readonly bot: FakeUser;
  readonly applicationId: string;
  readonly guild: FakeGuild;
  /** A person who is a member of the guild; the default author of injected messages. */
  readonly defaultUser: FakeUser;
  readonly requests: RecordedDiscordRequest[];
  /** Messages the bot created (REST or interaction webhooks), with their edit history and pings. */
  readonly sentMessages: FakeDiscordMessage[];
  readonly registeredCommands: RegisteredCommand[];
  readonly interactionCallbacks: Array<{ interactionId: string; token: string; body: unknown }>;
  readonly gatewayStats: GatewayStats;
  readonly gatewayLog: GatewayLogEntry[];
  /** True while a client is identified or resumed on a connection that is not deafened. */
  isGatewayLive(): boolean;
  injectGuildMessage(input: {
    content: string;
    channelId?: string;
    author?: FakeUser;
    replyToMessageId?: string;
    attachments?: FakeAttachment[];
    stickers?: FakeStickerItem[];
    id?: string;
  }): InjectedMessage;
  injectDirectMessage(input: {
    content: string;
    author?: FakeUser;
    attachments?: FakeAttachment[];
    stickers?: FakeStickerItem[];
    id?: string;
  }): InjectedMessage;
  /**
   * The author edits an injected message: MESSAGE_UPDATE with the whole message as it is now
   * (Discord sends the full message object since 2024), new `content`, recomputed mentions and a
   * later `edited_timestamp`. Returns the dispatch for `replay`.
   */
  editMessage(input: { id: string; content: string }): InjectedMessage;
  /**
   * Discord unfurls a link: MESSAGE_UPDATE with an embed added and `content` and
   * `edited_timestamp` unchanged. Not an edit by anyone.
   */
  addLinkEmbed(input: { id: string; url: string }): InjectedMessage;
  /** The message is deleted (by its author or a moderator): MESSAGE_DELETE with its ids only. */
  deleteMessage(input: { id: string }): InjectedMessage;
  injectSlashCommand(input: {
    name: string;
    channelId?: string;
    direct?: boolean;
    user?: FakeUser;
  }): InjectedInteraction;
  /** Sends any dispatch as given, e.g. a malformed payload; returns its sequence number. */
  dispatchRaw(t: string, d: unknown): number;
  /** Sends a past dispatch again (same payload); as Discord would when replaying after a resume. */
  replay(eventSeq: number): number;
  /** Without a code the socket is cut (the client sees 1006); with one it is closed with that code. */
  dropConnection(options?: { code?: number }): void;
  /** Enables exactly these privileged intents from the next IDENTIFY on (see the option). */
  setPrivilegedIntents(intents: readonly PrivilegedIntent[]): void;
  /** Sends op 7 RECONNECT. */
  requestReconnect(): void;
  setResumeOutcome(outcome: ResumeOutcome): void;
  /**
   * The current connection goes silent while staying open; with `keepHeartbeats` it still ACKs
   * heartbeats, so only a client-side watchdog can tell.
   */
  deafen(options?: { keepHeartbeats?: boolean }): void;
  rateLimitNext(injection: RateLimitInjection): void;
  /** While refused, posting in this channel answers 403 Missing Permissions (a removed permission). */
  setSendsRefused(channelId: string, refuse: boolean): void;
  /** Polls `check` until it returns something truthy. */
  waitFor<T>(check: () => T | undefined | null | false, options?: { timeoutMs?: number }): Promise<T>;
  close(): Promise<void>;
}

export async function startFakeDiscord(options: FakeDiscordOptions = {}): Promise<FakeDiscord> {
  const token = options.token ?? 'fake-discord-token';
  const now = options.now ?? Date.now;
  const cdn = createFakeDiscordCdn({ now });
  const world = createFakeDiscordWorld({ botUsername: options.botUsername ?? 'Nexus', now, cdn });
  let port = 0;
  const enabledPrivilegedIntents = new Set<PrivilegedIntent>(
    options.privilegedIntents ?? ['guildMembers', 'guildPresences', 'messageContent'],
  );
  const gateway = createFakeGateway({
    token,
    enabledPrivilegedIntents,
    heartbeatIntervalMs: options.heartbeatIntervalMs ?? 45_000,
    nextId: () => `session-${world.nextId()}`,
    resumeUrl: () => `ws://127.0.0.1:${port}/gateway-resume`,
    guildMembersChunk: (request) => {
      const { user_ids: userIds, nonce } = request as { user_ids?: string[] | string; nonce?: string };
      const wanted = typeof userIds === 'string' ? [userIds] : (userIds ?? []);
      const found = wanted.flatMap((id) => {
        const user = world.users.get(id);
        return user
          ? [memberPayload(user, id === world.bot.id ? [world.guild.botRoleId] : [], world.isoNow())]
          : [];
      });
      return {
        guild_id: world.guild.id,
        members: found,
        chunk_index: 0,
        chunk_count: 1,
        not_found: wanted.filter((id) => !world.users.has(id)),
        ...(nonce ? { nonce } : {}),
      };
    },
    sessionStart: (sessionId, resumeUrl) => [
      {
        t: 'READY',
        d: {
          v: 10,
          user: { ...userPayload(world.bot), verified: true, mfa_enabled: false, flags: 0 },
          guilds: [{ id: world.guild.id, unavailable: true }],
          session_id: sessionId,
          session_type: 'normal',
          resume_gateway_url: resumeUrl,
          application: { id: world.applicationId, flags: 0 },
          shard: [0, 1],
        },
      },
      { t: 'GUILD_CREATE', d: world.guildCreatePayload() },
    ],
  });
  const rest = createFakeDiscordRest({
    world,
    gateway,
    token,
    gatewayUrl: () => `ws://127.0.0.1:${port}/gateway`,
  });

  const server = createServer((request, response) => {
    if (cdn.handle(request, response)) return;
    rest.handle(request, response).catch((error: unknown) => {
      if (response.headersSent) return void response.destroy();
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({ message: error instanceof Error ? error.message : String(error), code: 0 }),
      );
    });
  });
  server.on('upgrade', (request, socket, head) => {
    if (!(request.url ?? '').startsWith('/gateway')) return void socket.destroy();
    gateway.handleUpgrade(request, socket, head);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  cdn.setBase(`http://127.0.0.1:${port}/cdn`);

  function knownMessage(id: string): Record<string, unknown> {
    const payload = world.messages.get(id);
    if (!payload) throw new Error(`fake Discord: no message ${id}`);
    return payload;
  }

  function injectMessage(payload: Record<string, unknown>): InjectedMessage {
    world.messages.set(payload.id as string, payload);
    const seq = gateway.dispatch('MESSAGE_CREATE', payload);
    return { id: payload.id as string, channelId: payload.channel_id as string, seq };
  }

  return {
    restApi: `http://127.0.0.1:${port}/api`,
    token,
    bot: world.bot,
    applicationId: world.applicationId,
    guild: world.guild,
    defaultUser: world.defaultUser,
    requests: rest.requests,
    sentMessages: rest.sent,
    registeredCommands: rest.commands,
    interactionCallbacks: rest.interactionCallbacks,
    gatewayStats: gateway.stats,
    gatewayLog: gateway.log,
    isGatewayLive: gateway.isLive,
    injectGuildMessage(input) {
      const author = world.rememberUser(input.author ?? world.defaultUser);
      return injectMessage(
        world.messagePayload({
          channelId: input.channelId ?? world.guild.textChannelId,
          author,
          content: input.content,
          ...(input.id ? { id: input.id } : {}),
          ...(input.replyToMessageId ? { replyToMessageId: input.replyToMessageId } : {}),
          ...(input.attachments ? { attachments: input.attachments } : {}),
          ...(input.stickers ? { stickers: input.stickers } : {}),
        }),
      );
    },
    injectDirectMessage(input) {
      const author = world.rememberUser(input.author ?? world.defaultUser);
      const channel = world.directChannelFor(author);
      return injectMessage(
        world.messagePayload({
          channelId: channel.id as string,
          author,
          content: input.content,
          ...(input.id ? { id: input.id } : {}),
          ...(input.attachments ? { attachments: input.attachments } : {}),
          ...(input.stickers ? { stickers: input.stickers } : {}),
        }),
      );
    },
    editMessage(input) {
      const payload = world.editedPayload(input.id, input.content);
      const seq = gateway.dispatch('MESSAGE_UPDATE', { ...payload });
      return { id: input.id, channelId: payload.channel_id as string, seq };
    },
    addLinkEmbed(input) {
      const current = knownMessage(input.id);
      const embeds = [...((current.embeds as unknown[]) ?? []), { type: 'link', url: input.url }];
      const payload: Record<string, unknown> = { ...current, embeds };
      world.messages.set(input.id, payload);
      const seq = gateway.dispatch('MESSAGE_UPDATE', { ...payload });
      return { id: input.id, channelId: payload.channel_id as string, seq };
    },
    deleteMessage(input) {
      const payload = knownMessage(input.id);
      world.messages.delete(input.id);
      const seq = gateway.dispatch('MESSAGE_DELETE', deletePayloadOf(payload));
      return { id: input.id, channelId: payload.channel_id as string, seq };
    },
    injectSlashCommand(input) {
      const user = world.rememberUser(input.user ?? world.defaultUser);
      const channel = input.direct
        ? world.directChannelFor(user)
        : (world.channels.get(input.channelId ?? world.guild.textChannelId) as Record<string, unknown>);
      const registered = rest.commands.flatMap((entry) => entry.commands);
      const command = registered.find((candidate) => candidate.name === input.name);
      const id = world.nextId();
      const interactionToken = `interaction-token-${id}`;
      rest.registerInteraction(interactionToken, channel.id as string);
      const seq = gateway.dispatch('INTERACTION_CREATE', {
        id,
        application_id: world.applicationId,
        type: 2,
        token: interactionToken,
        version: 1,
        locale: 'en-US',
        app_permissions: '2248473465835073',
        entitlements: [],
        authorizing_integration_owners: { '0': world.guild.id },
        context: input.direct ? 1 : 0,
        attachment_size_limit: 10_485_760,
        data: { id: (command?.id as string | undefined) ?? world.nextId(), name: input.name, type: 1 },
        channel_id: channel.id,
        channel: { id: channel.id, type: channel.type, ...(channel.name ? { name: channel.name } : {}) },
        ...(input.direct
          ? { user: userPayload(user) }
          : {
              guild_id: world.guild.id,
              guild_locale: 'en-US',
              member: { ...memberPayload(user, [], world.isoNow()), permissions: '2248473465835073' },
            }),
      });
      return { id, token: interactionToken, channelId: channel.id as string, seq };
    },
    dispatchRaw: (t, d) => gateway.dispatch(t, d),
    replay: gateway.replay,
    dropConnection: gateway.dropConnection,
    setPrivilegedIntents(intents) {
      enabledPrivilegedIntents.clear();
      for (const intent of intents) enabledPrivilegedIntents.add(intent);
    },
    requestReconnect: gateway.requestReconnect,
    setResumeOutcome: gateway.setResumeOutcome,
    deafen: gateway.deafen,
    rateLimitNext: rest.rateLimitNext,
    setSendsRefused: rest.setSendsRefused,
    async waitFor(check, waitOptions = {}) {
      const deadline = Date.now() + (waitOptions.timeoutMs ?? 5000);
      for (;;) {
        const value = check();
        if (value) return value;
        if (Date.now() > deadline) throw new Error('FakeDiscord.waitFor timed out.');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    async close() {
      await gateway.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
