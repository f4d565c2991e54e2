import { renderDiscordMarkdown } from '@nexus/channel-kit';
import {
  type ChannelAdapter,
  type ChannelStartOptions,
  type DeliverOptions,
  NexusError,
  silentLogger,
} from '@nexus/protocol';
import { PermissionFlagsBits, REST } from 'discord.js';
import { DISCORD_CAPABILITIES } from './capabilities.ts';
import { deliverDiscordReply } from './deliver-reply.ts';
import type { DiscordChannelOptions } from './discord-channel-options.ts';
import { createDiscordGatewayConnection } from './discord-gateway-connection.ts';
import { DiscordIntake } from './discord-intake.ts';
import { channelReplyTarget, idempotencyKeyOf, interactionReplyTarget } from './discord-reply-target.ts';
import { registerSlashCommands } from './discord-slash-commands.ts';
import { fetchDiscordAttachment } from './fetch-discord-attachment.ts';
import { openDiscordDatabase } from './open-discord-database.ts';

/** A Discord bot as a ChannelAdapter: discord.js for the gateway, plain REST for replies. */
export function createDiscordChannel(options: DiscordChannelOptions): ChannelAdapter {
  const name = options.name ?? 'discord';
  const logger = (options.logger ?? silentLogger).child({ channel: name });
  const now = options.now ?? Date.now;
  const token = options.token.replace(/^(Bot|Bearer)\s*/i, '');
  const intake = new DiscordIntake({
    name,
    logger,
    now,
    database: openDiscordDatabase(options.cursorPath ?? ':memory:'),
    ...(options.groupMessages ? { groupMessages: options.groupMessages } : {}),
    ...(options.intakeRetryDelayMs === undefined ? {} : { intakeRetryDelayMs: options.intakeRetryDelayMs }),
    ...(options.slashCommands === undefined ? {} : { slashCommands: options.slashCommands }),
  });
  let rest: REST | undefined;
  let stopped = false;
  let commandsRegistered = false;

  /**
   * Replies need only REST, so they go out before the gateway connection is up: core replays
   * what an earlier process accepted while the channels are still starting.
   */
  function restClient(): REST {
    rest ??= new REST(options.restApi ? { api: options.restApi } : {}).setToken(token);
    return rest;
  }

  const connection = createDiscordGatewayConnection({
    token,
    ...(options.restApi ? { restApi: options.restApi } : {}),
    logger,
    now,
    watchdogMs: options.watchdogMs ?? 120_000,
    readyTimeoutMs: options.readyTimeoutMs ?? 60_000,
    onMessage: (message, client) => intake.onMessage(message, client),
    onMessageUpdate: (oldMessage, newMessage, client) =>
      intake.onMessageUpdate(oldMessage, newMessage, client),
    onMessageDelete: (message) => intake.onMessageDelete(message),
    onInteraction: (interaction, client) => intake.onInteraction(interaction, client, rest),
    onSessionRestart: (client) => intake.requestBackfill(client),
    async onReady(client) {
      // Discord does not redeliver what arrived while no session was open: read it back.
      intake.requestBackfill(client);
      if (!options.slashCommands || commandsRegistered) return;
      await registerSlashCommands(client);
      commandsRegistered = true;
      logger.info({}, 'discord slash commands registered');
    },
  });

  return {
    name,
    capabilities: DISCORD_CAPABILITIES,
    async start({ sink, abortSignal }: ChannelStartOptions) {
      intake.open(sink);
      stopped = false;
      restClient();
      abortSignal?.addEventListener('abort', () => void connection.stop(), { once: true });
      await connection.start();
    },
    stopIntake: () => intake.stopIntake(),
    async stop() {
      await intake.close();
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
      const interaction = intake.takeInteraction(conversation.intentId);
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
