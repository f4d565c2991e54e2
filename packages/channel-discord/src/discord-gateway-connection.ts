import { setTimeout as sleep } from 'node:timers/promises';
import { backoffDelay } from '@nexus/channel-kit';
import type { ChannelHealth, Logger } from '@nexus/protocol';
import {
  Client,
  DiscordjsError,
  Events,
  GatewayIntentBits,
  type Interaction,
  type Message,
  Options,
  type PartialMessage,
  Partials,
  Status,
} from 'discord.js';
import { DiscordChannelError } from './discord-channel-error.ts';
import { probeDiscordGateway } from './probe-discord-gateway.ts';

export interface DiscordGatewayConnectionOptions {
  token: string;
  restApi?: string;
  logger: Logger;
  now: () => number;
  /** 0 turns the watchdog off. */
  watchdogMs: number;
  readyTimeoutMs: number;
  onMessage(message: Message, client: Client<true>): void;
  /** MESSAGE_UPDATE; messages are not cached, so `oldMessage` is usually partial. */
  onMessageUpdate(
    oldMessage: Message | PartialMessage,
    newMessage: Message | PartialMessage,
    client: Client<true>,
  ): void;
  /** MESSAGE_DELETE: only the ids Discord sends (see `readMessageDelete`). */
  onMessageDelete(deleted: DeletedMessageIds, client: Client<true>): void;
  onInteraction(interaction: Interaction, client: Client<true>): void;
  /** Runs after every (re)connection, e.g. to register slash commands. Failures are logged. */
  onReady(client: Client<true>): Promise<void>;
  /**
   * A shard started a fresh session on a client already connected (its resume was refused):
   * events sent meanwhile are gone, as after a restart.
   */
  onSessionRestart?(client: Client<true>): void;
}

export interface DeletedMessageIds {
  id: string;
  channelId: string;
}

/**
 * MESSAGE_DELETE read from the raw dispatch: discord.js drops a delete in a channel it has not
 * cached and cannot build from ids alone (a DM after a restart, which has no type in the
 * payload), yet that is the delete of a message an earlier process took.
 */
function readMessageDelete(packet: { t?: unknown; d?: unknown }): DeletedMessageIds | undefined {
  if (packet.t !== 'MESSAGE_DELETE' || typeof packet.d !== 'object' || packet.d === null) return undefined;
  const { id, channel_id: channelId } = packet.d as { id?: unknown; channel_id?: unknown };
  if (typeof id !== 'string' || typeof channelId !== 'string') return undefined;
  return { id, channelId };
}

type Phase = 'stopped' | 'connecting' | 'ready' | 'down';

/**
 * Owns the discord.js Client: logs in, reports health from the shards' state, reconnects with
 * backoff when a login fails, and replaces the whole client when the watchdog finds it deaf
 * (it believes it is connected, yet nothing has arrived for `watchdogMs` and a probe through the
 * gateway gets no answer).
 */
export function createDiscordGatewayConnection(options: DiscordGatewayConnectionOptions) {
  const { logger } = options;
  let phase: Phase = 'stopped';
  let detail: string | undefined;
  let client: Client<true> | undefined;
  let lastActivityAt = 0;
  let probing = false;
  let recreating: Promise<void> | undefined;
  let watchdog: ReturnType<typeof setInterval> | undefined;
  let stopController = new AbortController();
  let clientsCreated = 0;

  function buildClient(): Client {
    const created = new Client({
      intents: [
        GatewayIntentBits.Guilds,
        GatewayIntentBits.GuildMessages,
        GatewayIntentBits.DirectMessages,
        GatewayIntentBits.MessageContent,
      ],
      // Message: without a cache, updates and deletes of messages arrive only as partials.
      partials: [Partials.Channel, Partials.Message],
      allowedMentions: { parse: [], repliedUser: false },
      failIfNotExists: false,
      // History lives in the SessionStore; caching messages only costs memory and would hide
      // replayed MESSAGE_CREATEs from our own de-duplication.
      makeCache: Options.cacheWithLimits({ ...Options.DefaultMakeCacheSettings, MessageManager: 0 }),
      ...(options.restApi ? { rest: { api: options.restApi } } : {}),
    });
    clientsCreated += 1;
    const touch = () => {
      lastActivityAt = options.now();
    };
    created.on(Events.Raw, touch);
    created.on(Events.ShardResume, touch);
    created.on(Events.MessageCreate, (message) => {
      if (created === client) options.onMessage(message, created as Client<true>);
    });
    created.on(Events.MessageUpdate, (oldMessage, newMessage) => {
      if (created === client) options.onMessageUpdate(oldMessage, newMessage, created as Client<true>);
    });
    created.on(Events.Raw, (packet: { t?: unknown; d?: unknown }) => {
      if (created !== client) return;
      const deleted = readMessageDelete(packet);
      if (deleted) options.onMessageDelete(deleted, created as Client<true>);
    });
    created.on(Events.InteractionCreate, (interaction) => {
      if (created === client) options.onInteraction(interaction, created as Client<true>);
    });
    created.on(Events.ShardDisconnect, (event, shardId) => {
      if (created !== client || phase !== 'ready') return;
      phase = 'down';
      detail = `gateway closed with ${event.code} and will not reconnect`;
      logger.error({ code: event.code, shardId }, 'discord gateway closed for good');
    });
    created.on(Events.ShardReady, () => {
      if (created === client && phase === 'ready') options.onSessionRestart?.(created as Client<true>);
    });
    created.on(Events.ShardReconnecting, (shardId) =>
      logger.info({ shardId }, 'discord gateway reconnecting'),
    );
    created.on(Events.ShardError, (error, shardId) =>
      logger.warn({ shardId, err: error }, 'discord gateway error'),
    );
    created.on(Events.Error, (error) => logger.error({ err: error }, 'discord client error'));
    return created;
  }

  async function connectOnce(): Promise<void> {
    const created = buildClient();
    client = created as Client<true>;
    phase = 'connecting';
    detail = undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      await new Promise<void>((resolve, reject) => {
        created.once(Events.ClientReady, () => resolve());
        created.once(Events.ShardDisconnect, (event) =>
          reject(
            new DiscordChannelError({
              code: event.code === 4004 ? 'unauthorized' : 'not_configured',
              message: gatewayRefusalMessage(event.code),
              discordCode: event.code,
            }),
          ),
        );
        timer = setTimeout(
          () =>
            reject(
              new DiscordChannelError({
                code: 'timeout',
                message: 'Discord login timed out.',
                retryable: true,
              }),
            ),
          options.readyTimeoutMs,
        );
        created.login(options.token).catch(reject);
      });
    } catch (error) {
      if (client === created) client = undefined;
      created.removeAllListeners();
      await created.destroy().catch(() => undefined);
      throw classifyLoginError(error);
    } finally {
      clearTimeout(timer);
    }
    if (client !== created) return;
    phase = 'ready';
    lastActivityAt = options.now();
    logger.info({ botUserId: created.user?.id, clients: clientsCreated }, 'discord connected');
    await options
      .onReady(created as Client<true>)
      .catch((error: unknown) => logger.warn({ err: error }, 'discord post-connect step failed'));
  }

  /** Keeps trying with backoff; only a refusal (bad token, disallowed intents) ends it. */
  async function connectWithRetry(firstAttempt: number): Promise<void> {
    const signal = stopController.signal;
    for (let attempt = firstAttempt; !signal.aborted; attempt += 1) {
      try {
        await connectOnce();
        return;
      } catch (error) {
        const failure = DiscordChannelError.from(error, 'connect to the Discord gateway');
        phase = 'down';
        detail = failure.message;
        if (!failure.retryable || signal.aborted) throw failure;
        const delayMs = backoffDelay({ attempt, initialMs: 1000, maxMs: 60_000 });
        logger.warn({ attempt, delayMs, err: failure }, 'discord login failed; retrying');
        await sleep(delayMs, undefined, { signal }).catch(() => undefined);
      }
    }
  }

  async function destroyClient(): Promise<void> {
    const old = client;
    client = undefined;
    if (!old) return;
    old.removeAllListeners();
    await old.destroy().catch((error: unknown) => logger.warn({ err: error }, 'discord destroy failed'));
  }

  function recreate(reason: string): Promise<void> {
    recreating ??= (async () => {
      logger.warn({ reason }, 'discord client is deaf; recreating it');
      await destroyClient();
      await connectWithRetry(0).catch((error: unknown) =>
        logger.error({ err: error }, 'discord reconnect gave up'),
      );
    })().finally(() => {
      recreating = undefined;
    });
    return recreating;
  }

  function shardsReady(current: Client): boolean {
    const shards = [...current.ws.shards.values()];
    return shards.length > 0 && shards.every((shard) => shard.status === Status.Ready);
  }

  async function checkWatchdog(): Promise<void> {
    const current = client;
    if (!current || phase !== 'ready' || recreating || probing || !shardsReady(current)) {
      lastActivityAt = options.now();
      return;
    }
    const silentMs = options.now() - lastActivityAt;
    if (silentMs < options.watchdogMs) return;
    probing = true;
    try {
      const alive = await probeDiscordGateway(current, { timeoutMs: Math.min(options.watchdogMs, 15_000) });
      if (current !== client || stopController.signal.aborted) return;
      if (alive) lastActivityAt = options.now();
      else void recreate(`no gateway events for ${silentMs} ms and the probe went unanswered`);
    } finally {
      probing = false;
    }
  }

  return {
    async start(): Promise<void> {
      stopController = new AbortController();
      try {
        await connectOnce();
      } catch (error) {
        const failure = DiscordChannelError.from(error, 'connect to the Discord gateway');
        phase = 'down';
        detail = failure.message;
        if (!failure.retryable) throw failure;
        logger.warn({ err: failure }, 'discord not reachable at start; retrying in the background');
        void connectWithRetry(1).catch((retryError: unknown) =>
          logger.error({ err: retryError }, 'discord reconnect gave up'),
        );
      }
      if (options.watchdogMs > 0) {
        const tickMs = Math.max(50, Math.min(Math.floor(options.watchdogMs / 4), 5000));
        watchdog = setInterval(() => void checkWatchdog(), tickMs);
        watchdog.unref();
      }
    },
    async stop(): Promise<void> {
      stopController.abort();
      clearInterval(watchdog);
      watchdog = undefined;
      await recreating;
      await destroyClient();
      phase = 'stopped';
      detail = undefined;
    },
    health(): ChannelHealth {
      if (phase === 'stopped') return { status: 'stopped' };
      if (phase === 'down') return { status: 'down', ...(detail ? { detail } : {}) };
      if (phase === 'connecting' || !client) return { status: 'connecting' };
      if (recreating) return { status: 'connecting', detail: 'recreating the client' };
      if (shardsReady(client)) return { status: 'up' };
      return { status: 'connecting', detail: 'gateway reconnecting' };
    },
    client: (): Client<true> | undefined => client,
    clientsCreated: () => clientsCreated,
  };
}

export type DiscordGatewayConnection = ReturnType<typeof createDiscordGatewayConnection>;

function classifyLoginError(error: unknown): unknown {
  if (error instanceof DiscordjsError && error.code === 'TokenInvalid') {
    return new DiscordChannelError({
      code: 'unauthorized',
      message: 'Discord rejected the bot token.',
      cause: error,
    });
  }
  return error;
}

/** What a close code that ends the connection for good means, and what the owner can do about it. */
export function gatewayRefusalMessage(code: number): string {
  if (code === 4004) {
    return 'Discord closed the gateway with code 4004: the bot token was rejected. Check NEXUS_DISCORD_BOT_TOKEN.';
  }
  if (code === 4014) {
    return 'Discord closed the gateway with code 4014 (disallowed intents): the bot needs the privileged Message Content intent to read messages. Turn on "Message Content Intent" at https://discord.com/developers/applications → your app → Bot → Privileged Gateway Intents, then restart Nexus.';
  }
  if (code === 4013)
    return 'Discord closed the gateway with code 4013 (invalid intents): the adapter sent an intent Discord does not know. This is a bug in Nexus; please report it.';
  return `Discord closed the gateway with code ${code} (check the token and the bot's intents).`;
}
