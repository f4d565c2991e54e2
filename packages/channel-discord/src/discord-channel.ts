import {
  deleteIntentOf,
  passesGroupGate,
  passesRevisionGate,
  renderDiscordMarkdown,
  TtlSet,
  wasIntentTaken,
} from '@nexus/channel-kit';
import {
  type ChannelAdapter,
  type ChannelStartOptions,
  type DeliverOptions,
  type IntentInput,
  type IntentSink,
  NexusError,
  silentLogger,
} from '@nexus/protocol';
import {
  type Client,
  type Interaction,
  type Message,
  type PartialMessage,
  PermissionFlagsBits,
  REST,
} from 'discord.js';
import { backfillMissedMessages } from './backfill-missed-messages.ts';
import { DISCORD_CAPABILITIES } from './capabilities.ts';
import { deliverDiscordReply } from './deliver-reply.ts';
import { openDiscordChannelCursor } from './discord-channel-cursor.ts';
import type { DiscordChannelOptions } from './discord-channel-options.ts';
import { createDiscordGatewayConnection, type DeletedMessageIds } from './discord-gateway-connection.ts';
import { channelReplyTarget, idempotencyKeyOf, interactionReplyTarget } from './discord-reply-target.ts';
import {
  deferSlashCommand,
  findSlashCommand,
  registerSlashCommands,
  slashCommandIntent,
} from './discord-slash-commands.ts';
import { fetchDiscordAttachment } from './fetch-discord-attachment.ts';
import { MessageCursorTracker } from './message-cursor-tracker.ts';
import { openDiscordDatabase } from './open-discord-database.ts';
import { type TakenMessage, TakenMessages } from './taken-messages.ts';
import { discordEditToIntent, discordMessageToIntent } from './to-intent.ts';

interface PendingInteraction {
  applicationId: string;
  token: string;
  ephemeral: boolean;
  expiresAt: number;
}

// Interaction tokens are valid for 15 minutes.
const INTERACTION_TOKEN_LIFETIME_MS = 14 * 60_000;
/** How often an edit or delete core did not take is offered again before it is dropped. */
const MAX_REVISION_ATTEMPTS = 5;

/** A Discord bot as a ChannelAdapter: discord.js for the gateway, plain REST for replies. */
export function createDiscordChannel(options: DiscordChannelOptions): ChannelAdapter {
  const name = options.name ?? 'discord';
  const logger = (options.logger ?? silentLogger).child({ channel: name });
  const now = options.now ?? Date.now;
  const token = options.token.replace(/^(Bot|Bearer)\s*/i, '');
  const seen = new TtlSet({ ttlMs: 30 * 60_000, maxSize: 10_000, now });
  const interactions = new Map<string, PendingInteraction>();
  const database = openDiscordDatabase(options.cursorPath ?? ':memory:');
  const cursor = openDiscordChannelCursor(database);
  const tracker = new MessageCursorTracker(cursor);
  const taken = new TakenMessages(database, { now });
  const revisionRetries = new Set<ReturnType<typeof setTimeout>>();
  let sink: IntentSink | undefined;
  let rest: REST | undefined;
  let stopped = false;

  /**
   * Replies need only REST, so they go out before the gateway connection is up: core replays
   * what an earlier process accepted while the channels are still starting.
   */
  function restClient(): REST {
    rest ??= new REST(options.restApi ? { api: options.restApi } : {}).setToken(token);
    return rest;
  }
  let commandsRegistered = false;
  /** Set by `stopIntake`: gateway events are ignored and no cursor moves any more. */
  let intakeStopped = false;
  let backfilling: Promise<void> | undefined;
  let backfillAgain = false;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;

  /** `settled(taken)` says whether core took the intent (false: leave it to be fetched again). */
  function forward(
    intent: IntentInput,
    onRejected?: (message: string) => Promise<void>,
    settled?: (taken: boolean) => void,
  ): void {
    const current = sink;
    if (!current) return;
    current(intent)
      .then(
        async (result) => {
          settled?.(wasIntentTaken(result));
          if (result.status !== 'rejected') return;
          logger.info({ intentId: intent.id, code: result.code }, 'core rejected a discord message');
          if (wasIntentTaken(result)) await onRejected?.(result.message);
        },
        (error: unknown) => {
          settled?.(false);
          logger.error({ intentId: intent.id, err: error }, 'intake failed');
        },
      )
      .catch((error: unknown) =>
        logger.warn({ intentId: intent.id, err: error }, 'could not tell the sender about a rejection'),
      );
  }

  function onMessage(message: Message, client: Client<true>): void {
    if (intakeStopped) return;
    const normalised = discordMessageToIntent(message, {
      channelName: name,
      botUserId: client.user.id,
      now,
    });
    if (normalised.kind === 'ignored') return;
    const { intent } = normalised;
    // A replayed MESSAGE_CREATE (gateway resume, recreated client) must not get a second reply.
    if (!seen.addIfAbsent(`message:${message.id}`)) {
      logger.debug({ messageId: message.id }, 'discord message already seen');
      return;
    }
    if (!passesGroupGate(intent, options.groupMessages)) return;
    try {
      taken.remember(message.id, intent);
    } catch (error) {
      // The message still goes to core; only a later delete of it would not be reported.
      logger.warn({ err: error, messageId: message.id }, 'could not record a taken discord message');
    }
    const channelId = message.channelId;
    tracker.begin(channelId, message.id);
    forward(intent, undefined, (taken) => {
      try {
        tracker.settle(channelId, message.id, taken);
      } catch (error) {
        logger.warn({ err: error, channelId }, 'could not move the discord channel cursor');
      }
      if (taken) return;
      // Let it in again: the next backfill fetches it from the channel's history.
      seen.delete(`message:${message.id}`);
      scheduleRetry(client);
    });
  }

  /**
   * An author changed a message's content: an edit intent of it. Edits are not new messages, so
   * they never touch the channel cursor; a group edit passes when it addresses the bot or its
   * message was handed to core.
   */
  function onMessageUpdate(
    oldMessage: Message | PartialMessage,
    newMessage: Message | PartialMessage,
    client: Client<true>,
  ): void {
    if (intakeStopped) return;
    try {
      const normalised = discordEditToIntent(oldMessage, newMessage, {
        channelName: name,
        botUserId: client.user.id,
        now,
      });
      if (normalised.kind === 'ignored') {
        logger.debug({ messageId: newMessage.id, reason: normalised.reason }, 'discord update ignored');
        return;
      }
      const { intent } = normalised;
      if (!passesRevisionGate(intent, options.groupMessages, taken.has(newMessage.id))) return;
      forwardRevision(intent);
    } catch (error) {
      // Never throw into discord.js' emitter: one odd payload must not stop the others.
      logger.warn({ err: error, messageId: newMessage.id }, 'discord message update failed');
    }
  }

  /**
   * A message was deleted. MESSAGE_DELETE names only the message, so only a message handed to
   * core (by this process or an earlier one on the same file) can be reported: its author and
   * conversation are recorded. Anything else, the bot's own replies included, core never took.
   */
  function onMessageDelete(message: DeletedMessageIds): void {
    if (intakeStopped) return;
    let target: TakenMessage | undefined;
    try {
      target = taken.get(message.id);
    } catch (error) {
      logger.warn({ err: error, messageId: message.id }, 'could not look up a deleted discord message');
      return;
    }
    // Snowflakes are unique across channels: another channel means a payload not to trust.
    if (!target || target.conversation.id !== message.channelId) return;
    forwardRevision(
      deleteIntentOf({
        targetIntentId: message.id,
        channel: name,
        conversation: target.conversation,
        sender: target.sender,
        userId: target.userId,
        receivedAt: new Date(now()),
      }),
    );
  }

  /**
   * Discord never sends an update again and its history shows no edits, so an edit or delete
   * core did not take (busy, shutting down) is offered again from memory a few times.
   */
  function forwardRevision(intent: IntentInput, attempt = 0): void {
    if (!seen.addIfAbsent(`revision:${intent.id}`)) {
      logger.debug({ intentId: intent.id }, 'discord revision already seen');
      return;
    }
    forward(intent, undefined, (wasTaken) => {
      if (wasTaken) return;
      seen.delete(`revision:${intent.id}`);
      if (intakeStopped || attempt + 1 >= MAX_REVISION_ATTEMPTS) {
        logger.warn(
          { intentId: intent.id, attempts: attempt + 1 },
          'discord edit or delete not taken; dropped',
        );
        return;
      }
      const timer = setTimeout(() => {
        revisionRetries.delete(timer);
        if (!intakeStopped) forwardRevision(intent, attempt + 1);
      }, options.intakeRetryDelayMs ?? 2_000);
      timer.unref?.();
      revisionRetries.add(timer);
    });
  }

  function clearRevisionRetries(): void {
    for (const timer of revisionRetries) clearTimeout(timer);
    revisionRetries.clear();
  }

  function scheduleRetry(client: Client<true>): void {
    if (retryTimer || intakeStopped) return;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      requestBackfill(client);
    }, options.intakeRetryDelayMs ?? 2_000);
    retryTimer.unref?.();
  }

  /** One backfill at a time; a request during one runs another pass after it. */
  function requestBackfill(client: Client<true>): void {
    if (intakeStopped) return;
    if (backfilling) {
      backfillAgain = true;
      return;
    }
    backfilling = (async () => {
      do {
        backfillAgain = false;
        await backfillMissedMessages({
          client,
          cursors: cursor.list(),
          onMessage: (message) => onMessage(message, client),
          isStopped: () => intakeStopped,
          logger,
        });
      } while (backfillAgain && !intakeStopped);
    })().finally(() => {
      backfilling = undefined;
    });
  }

  function onInteraction(interaction: Interaction, client: Client<true>): void {
    if (intakeStopped) return;
    if (!options.slashCommands || !interaction.isChatInputCommand() || !rest) return;
    const command = findSlashCommand(interaction.commandName);
    if (!command || !seen.addIfAbsent(`interaction:${interaction.id}`)) return;
    const currentRest = rest;
    const intent = slashCommandIntent(interaction, { channelName: name, now });
    for (const [key, pending] of interactions) if (pending.expiresAt <= now()) interactions.delete(key);
    const pending: PendingInteraction = {
      applicationId: client.application.id,
      token: interaction.token,
      ephemeral: command.ephemeral,
      expiresAt: now() + INTERACTION_TOKEN_LIFETIME_MS,
    };
    interactions.set(intent.id, pending);
    // Without an answer the deferred reply would say "thinking…" until the token expires.
    const answerRejection = async (message: string) => {
      interactions.delete(intent.id);
      await interactionReplyTarget({ rest: currentRest, ...pending }).send(`⚠️ ${message}`, 0);
    };
    deferSlashCommand(currentRest, interaction, command)
      .then(() => forward(intent, answerRejection))
      .catch((error: unknown) => {
        interactions.delete(intent.id);
        logger.warn({ err: error, command: command.name }, 'could not answer a slash command');
      });
  }

  const connection = createDiscordGatewayConnection({
    token,
    ...(options.restApi ? { restApi: options.restApi } : {}),
    logger,
    now,
    watchdogMs: options.watchdogMs ?? 120_000,
    readyTimeoutMs: options.readyTimeoutMs ?? 60_000,
    onMessage,
    onMessageUpdate,
    onMessageDelete: (message) => onMessageDelete(message),
    onInteraction,
    onSessionRestart: (client) => requestBackfill(client),
    async onReady(client) {
      // Discord does not redeliver what arrived while no session was open: read it back.
      requestBackfill(client);
      if (!options.slashCommands || commandsRegistered) return;
      await registerSlashCommands(client);
      commandsRegistered = true;
      logger.info({}, 'discord slash commands registered');
    },
  });

  return {
    name,
    capabilities: DISCORD_CAPABILITIES,
    async start({ sink: intake, abortSignal }: ChannelStartOptions) {
      sink = intake;
      intakeStopped = false;
      stopped = false;
      restClient();
      abortSignal?.addEventListener('abort', () => void connection.stop(), { once: true });
      await connection.start();
    },
    async stopIntake() {
      intakeStopped = true;
      clearRevisionRetries();
      clearTimeout(retryTimer);
      retryTimer = undefined;
      await backfilling;
    },
    async stop() {
      intakeStopped = true;
      clearRevisionRetries();
      clearTimeout(retryTimer);
      await backfilling;
      sink = undefined;
      await connection.stop();
      rest?.clearHashSweeper();
      rest?.clearHandlerSweeper();
      rest = undefined;
      stopped = true;
    },
    async deliver({ conversation, events, abortSignal }: DeliverOptions) {
      if (stopped) {
        throw new NexusError({
          code: 'channel_unavailable',
          message: 'The Discord channel is stopped.',
          retryable: true,
        });
      }
      const rest = restClient();
      const interaction = interactions.get(conversation.intentId);
      interactions.delete(conversation.intentId);
      const replyToMessageId =
        conversation.kind !== 'direct' && /^\d+$/.test(conversation.intentId)
          ? conversation.intentId
          : undefined;
      const target = interaction
        ? interactionReplyTarget({ rest, ...interaction })
        : channelReplyTarget({
            rest,
            channelId: conversation.conversationId,
            ...(replyToMessageId ? { replyToMessageId } : {}),
            mentionRepliedUser: options.mentionRepliedUser ?? true,
            // A replayed delivery reuses the first message (see idempotencyKeyOf).
            idempotencyKey: idempotencyKeyOf(conversation),
          });
      await deliverDiscordReply({
        target,
        events,
        render: renderDiscordMarkdown,
        streamEditIntervalMs: options.streamEditIntervalMs ?? 1200,
        typingIntervalMs: options.typingIntervalMs ?? 8000,
        logger: logger.child({ conversationId: conversation.conversationId }),
        now,
        ...(abortSignal ? { abortSignal } : {}),
      });
    },
    health: () => connection.health(),
    // A group admin here is whoever may manage others' messages in the channel (Manage Messages,
    // which the server's owner and Administrator roles include): cancelling a reminder someone
    // else set is of that kind. Members come from discord.js's cache (every guild message carries
    // its author's), else from the API.
    async isGroupAdmin({ conversationId, platformId }) {
      const client = connection.client();
      if (!client) return false;
      const channel = await client.channels.fetch(conversationId);
      if (!channel || channel.isDMBased() || !('guild' in channel)) return false;
      const member = await channel.guild.members.fetch(platformId);
      return channel.permissionsFor(member)?.has(PermissionFlagsBits.ManageMessages) ?? false;
    },
    fetchAttachment: (fetchOptions) =>
      fetchDiscordAttachment({
        ...fetchOptions,
        // A REST base set for a local stand-in also serves its CDN; production uses Discord's hosts.
        ...(options.restApi ? { allowedOrigin: options.restApi } : {}),
      }),
  };
}
