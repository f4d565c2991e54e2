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
export function createDiscordGatewayConnection(
  options: DiscordGatewayConnectionOptions,
): DiscordGatewayConnection {
  return new DiscordGatewayConnection(options);
}

/** The connection's state: which client is current, its phase, and the watchdog's bookkeeping. */
export class DiscordGatewayConnection {
  readonly #options: DiscordGatewayConnectionOptions;
  #phase: Phase = 'stopped';
  #detail: string | undefined;
  /** Events from any other client (one being replaced) are ignored. */
  #client: Client<true> | undefined;
  #lastActivityAt = 0;
  #probing = false;
  #recreating: Promise<void> | undefined;
  #watchdog: ReturnType<typeof setInterval> | undefined;
  #stopController = new AbortController();
  #clientsCreated = 0;

  constructor(options: DiscordGatewayConnectionOptions) {
    this.#options = options;
  }

  async start(): Promise<void> {
    const { logger, watchdogMs } = this.#options;
    this.#stopController = new AbortController();
    try {
      await this.#connectOnce();
    } catch (error) {
      const failure = DiscordChannelError.from(error, 'connect to the Discord gateway');
      this.#phase = 'down';
      this.#detail = failure.message;
      if (!failure.retryable) throw failure;
      logger.warn({ err: failure }, 'discord not reachable at start; retrying in the background');
      void this.#connectWithRetry(1).catch((retryError: unknown) =>
        logger.error({ err: retryError }, 'discord reconnect gave up'),
      );
    }
    if (watchdogMs > 0) {
      const tickMs = Math.max(50, Math.min(Math.floor(watchdogMs / 4), 5000));
      this.#watchdog = setInterval(() => void this.#checkWatchdog(), tickMs);
      this.#watchdog.unref();
    }
  }

  async stop(): Promise<void> {
    this.#stopController.abort();
    clearInterval(this.#watchdog);
    this.#watchdog = undefined;
    await this.#recreating;
    await this.#destroyClient();
    this.#phase = 'stopped';
    this.#detail = undefined;
  }

  health(): ChannelHealth {
    const detail = this.#detail;
    if (this.#phase === 'stopped') return { status: 'stopped' };
    if (this.#phase === 'down') return { status: 'down', ...(detail ? { detail } : {}) };
    if (this.#phase === 'connecting' || !this.#client) return { status: 'connecting' };
    if (this.#recreating) return { status: 'connecting', detail: 'recreating the client' };
    if (shardsReady(this.#client)) return { status: 'up' };
    return { status: 'connecting', detail: 'gateway reconnecting' };
  }

  client(): Client<true> | undefined {
    return this.#client;
  }

  clientsCreated(): number {
    return this.#clientsCreated;
  }

  #buildClient(): Client {
    const { logger } = this.#options;
    const created = newDiscordClient(this.#options.restApi);
    this.#clientsCreated += 1;
    const touch = () => {
      this.#lastActivityAt = this.#options.now();
    };
    created.on(Events.Raw, touch);
    created.on(Events.ShardResume, touch);
    this.#forwardEvents(created);
    created.on(Events.ShardDisconnect, (event, shardId) => {
      if (created !== this.#client || this.#phase !== 'ready') return;
      this.#phase = 'down';
      this.#detail = `gateway closed with ${event.code} and will not reconnect`;
      logger.error({ code: event.code, shardId }, 'discord gateway closed for good');
    });
    created.on(Events.ShardReady, () => {
      if (created === this.#client && this.#phase === 'ready')
        this.#options.onSessionRestart?.(created as Client<true>);
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

  /** Messages, edits, deletes and interactions go to the owner, from the current client only. */
  #forwardEvents(created: Client): void {
    const options = this.#options;
    const current = created as Client<true>;
    created.on(Events.MessageCreate, (message) => {
      if (created === this.#client) options.onMessage(message, current);
    });
    created.on(Events.MessageUpdate, (oldMessage, newMessage) => {
      if (created === this.#client) options.onMessageUpdate(oldMessage, newMessage, current);
    });
    created.on(Events.Raw, (packet: { t?: unknown; d?: unknown }) => {
      if (created !== this.#client) return;
      const deleted = readMessageDelete(packet);
      if (deleted) options.onMessageDelete(deleted, current);
    });
    created.on(Events.InteractionCreate, (interaction) => {
      if (created === this.#client) options.onInteraction(interaction, current);
    });
  }

  async #connectOnce(): Promise<void> {
    const { logger } = this.#options;
    const created = this.#buildClient();
    this.#client = created as Client<true>;
    this.#phase = 'connecting';
    this.#detail = undefined;
    try {
      await loginDiscordClient(created, this.#options.token, this.#options.readyTimeoutMs);
    } catch (error) {
      if (this.#client === created) this.#client = undefined;
      created.removeAllListeners();
      await created.destroy().catch(() => undefined);
      throw classifyLoginError(error);
    }
    if (this.#client !== created) return;
    this.#phase = 'ready';
    this.#lastActivityAt = this.#options.now();
    logger.info({ botUserId: created.user?.id, clients: this.#clientsCreated }, 'discord connected');
    await this.#options
      .onReady(created as Client<true>)
      .catch((error: unknown) => logger.warn({ err: error }, 'discord post-connect step failed'));
  }

  /** Keeps trying with backoff; only a refusal (bad token, disallowed intents) ends it. */
  async #connectWithRetry(firstAttempt: number): Promise<void> {
    const signal = this.#stopController.signal;
    for (let attempt = firstAttempt; !signal.aborted; attempt += 1) {
      try {
        await this.#connectOnce();
        return;
      } catch (error) {
        const failure = DiscordChannelError.from(error, 'connect to the Discord gateway');
        this.#phase = 'down';
        this.#detail = failure.message;
        if (!failure.retryable || signal.aborted) throw failure;
        const delayMs = backoffDelay({ attempt, initialMs: 1000, maxMs: 60_000 });
        this.#options.logger.warn({ attempt, delayMs, err: failure }, 'discord login failed; retrying');
        await sleep(delayMs, undefined, { signal }).catch(() => undefined);
      }
    }
  }

  async #destroyClient(): Promise<void> {
    const old = this.#client;
    this.#client = undefined;
    if (!old) return;
    old.removeAllListeners();
    await old
      .destroy()
      .catch((error: unknown) => this.#options.logger.warn({ err: error }, 'discord destroy failed'));
  }

  #recreate(reason: string): Promise<void> {
    const { logger } = this.#options;
    this.#recreating ??= (async () => {
      logger.warn({ reason }, 'discord client is deaf; recreating it');
      await this.#destroyClient();
      await this.#connectWithRetry(0).catch((error: unknown) =>
        logger.error({ err: error }, 'discord reconnect gave up'),
      );
    })().finally(() => {
      this.#recreating = undefined;
    });
    return this.#recreating;
  }

  async #checkWatchdog(): Promise<void> {
    const { now, watchdogMs } = this.#options;
    const current = this.#client;
    if (!current || this.#phase !== 'ready' || this.#recreating || this.#probing || !shardsReady(current)) {
      this.#lastActivityAt = now();
      return;
    }
    const silentMs = now() - this.#lastActivityAt;
    if (silentMs < watchdogMs) return;
    this.#probing = true;
    try {
      const alive = await probeDiscordGateway(current, { timeoutMs: Math.min(watchdogMs, 15_000) });
      if (current !== this.#client || this.#stopController.signal.aborted) return;
      if (alive) this.#lastActivityAt = now();
      else void this.#recreate(`no gateway events for ${silentMs} ms and the probe went unanswered`);
    } finally {
      this.#probing = false;
    }
  }
}

function newDiscordClient(restApi: string | undefined): Client {
  return new Client({
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
    ...(restApi ? { rest: { api: restApi } } : {}),
  });
}

/**
 * Logs `created` in and waits for it to be ready; a close code on the way (bad token, disallowed
 * intents) or no ready within `readyTimeoutMs` rejects.
 */
async function loginDiscordClient(created: Client, token: string, readyTimeoutMs: number): Promise<void> {
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
        readyTimeoutMs,
      );
      created.login(token).catch(reject);
    });
  } finally {
    clearTimeout(timer);
  }
}

function shardsReady(current: Client): boolean {
  const shards = [...current.ws.shards.values()];
  return shards.length > 0 && shards.every((shard) => shard.status === Status.Ready);
}

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
