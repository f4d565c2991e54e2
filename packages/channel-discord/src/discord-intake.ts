import type { DatabaseSync } from 'node:sqlite';
import {
  deleteIntentOf,
  passesGroupGate,
  passesRevisionGate,
  TtlSet,
  wasIntentTaken,
} from '@nexus/channel-kit';
import type { IntentInput, IntentSink, Logger } from '@nexus/protocol';
import type { Client, Interaction, Message, PartialMessage, REST } from 'discord.js';
import { backfillMissedMessages } from './backfill-missed-messages.ts';
import { type DiscordChannelCursor, openDiscordChannelCursor } from './discord-channel-cursor.ts';
import type { DiscordChannelOptions } from './discord-channel-options.ts';
import type { DeletedMessageIds } from './discord-gateway-connection.ts';
import { interactionReplyTarget } from './discord-reply-target.ts';
import { deferSlashCommand, findSlashCommand, slashCommandIntent } from './discord-slash-commands.ts';
import { MessageCursorTracker } from './message-cursor-tracker.ts';
import { type TakenMessage, TakenMessages } from './taken-messages.ts';
import { discordEditToIntent, discordMessageToIntent } from './to-intent.ts';

/** A deferred slash command waiting for its reply; the reply goes through the interaction token. */
export interface PendingInteraction {
  applicationId: string;
  token: string;
  ephemeral: boolean;
  expiresAt: number;
}

// Interaction tokens are valid for 15 minutes.
const INTERACTION_TOKEN_LIFETIME_MS = 14 * 60_000;
/** How often an edit or delete core did not take is offered again before it is dropped. */
const MAX_REVISION_ATTEMPTS = 5;

export interface DiscordIntakeOptions
  extends Pick<DiscordChannelOptions, 'groupMessages' | 'intakeRetryDelayMs' | 'slashCommands'> {
  name: string;
  logger: Logger;
  now: () => number;
  /** The channel's database: the per-channel cursors and the ids of taken messages. */
  database: DatabaseSync;
}

/**
 * Everything a Discord bot receives, on its way to core: messages (de-duplicated, gated, the
 * channel cursor moved only over what core took, a backfill for what it did not), edits and
 * deletes as revisions (offered again a few times, since Discord never resends them), and slash
 * commands (deferred, their tokens kept for the reply). The gateway connection calls the `on…`
 * methods; none throws into discord.js' emitter.
 */
export class DiscordIntake {
  readonly #options: DiscordIntakeOptions;
  readonly #seen: TtlSet;
  readonly #interactions = new Map<string, PendingInteraction>();
  readonly #cursor: DiscordChannelCursor;
  readonly #tracker: MessageCursorTracker;
  readonly #taken: TakenMessages;
  readonly #revisionRetries = new Set<ReturnType<typeof setTimeout>>();
  #sink: IntentSink | undefined;
  /** Set by `stopIntake`: gateway events are ignored and no cursor moves any more. */
  #stopped = false;
  #backfilling: Promise<void> | undefined;
  #backfillAgain = false;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(options: DiscordIntakeOptions) {
    this.#options = options;
    this.#seen = new TtlSet({ ttlMs: 30 * 60_000, maxSize: 10_000, now: options.now });
    this.#cursor = openDiscordChannelCursor(options.database);
    this.#tracker = new MessageCursorTracker(this.#cursor);
    this.#taken = new TakenMessages(options.database, { now: options.now });
  }

  /** Intents go to `sink` from now on. */
  open(sink: IntentSink): void {
    this.#sink = sink;
    this.#stopped = false;
  }

  /** No more intake: retries cancelled, the running backfill finished. */
  async stopIntake(): Promise<void> {
    this.#stopped = true;
    for (const timer of this.#revisionRetries) clearTimeout(timer);
    this.#revisionRetries.clear();
    clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    await this.#backfilling;
  }

  /** `stopIntake`, then forget the sink. */
  async close(): Promise<void> {
    await this.stopIntake();
    this.#sink = undefined;
  }

  /** The pending slash command a reply answers, once: its token is used up by the reply. */
  takeInteraction(intentId: string): PendingInteraction | undefined {
    const interaction = this.#interactions.get(intentId);
    this.#interactions.delete(intentId);
    return interaction;
  }

  onMessage(message: Message, client: Client<true>): void {
    if (this.#stopped) return;
    const { name, now, logger } = this.#options;
    const normalised = discordMessageToIntent(message, { channelName: name, botUserId: client.user.id, now });
    if (normalised.kind === 'ignored') return;
    const { intent } = normalised;
    // A replayed MESSAGE_CREATE (gateway resume, recreated client) must not get a second reply.
    if (!this.#seen.addIfAbsent(`message:${message.id}`)) {
      logger.debug({ messageId: message.id }, 'discord message already seen');
      return;
    }
    if (!passesGroupGate(intent, this.#options.groupMessages)) return;
    try {
      this.#taken.remember(message.id, intent);
    } catch (error) {
      // The message still goes to core; only a later delete of it would not be reported.
      logger.warn({ err: error, messageId: message.id }, 'could not record a taken discord message');
    }
    const channelId = message.channelId;
    this.#tracker.begin(channelId, message.id);
    this.#forward(intent, undefined, (taken) => {
      try {
        this.#tracker.settle(channelId, message.id, taken);
      } catch (error) {
        logger.warn({ err: error, channelId }, 'could not move the discord channel cursor');
      }
      if (taken) return;
      // Let it in again: the next backfill fetches it from the channel's history.
      this.#seen.delete(`message:${message.id}`);
      this.#scheduleRetry(client);
    });
  }

  /**
   * An author changed a message's content: an edit intent of it. Edits are not new messages, so
   * they never touch the channel cursor; a group edit passes when it addresses the bot or its
   * message was handed to core.
   */
  onMessageUpdate(
    oldMessage: Message | PartialMessage,
    newMessage: Message | PartialMessage,
    client: Client<true>,
  ): void {
    if (this.#stopped) return;
    const { name, now, logger } = this.#options;
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
      if (!passesRevisionGate(intent, this.#options.groupMessages, this.#taken.has(newMessage.id))) return;
      this.#forwardRevision(intent);
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
  onMessageDelete(message: DeletedMessageIds): void {
    if (this.#stopped) return;
    let target: TakenMessage | undefined;
    try {
      target = this.#taken.get(message.id);
    } catch (error) {
      this.#options.logger.warn(
        { err: error, messageId: message.id },
        'could not look up a deleted discord message',
      );
      return;
    }
    // Snowflakes are unique across channels: another channel means a payload not to trust.
    if (!target || target.conversation.id !== message.channelId) return;
    this.#forwardRevision(
      deleteIntentOf({
        targetIntentId: message.id,
        channel: this.#options.name,
        conversation: target.conversation,
        sender: target.sender,
        userId: target.userId,
        receivedAt: new Date(this.#options.now()),
      }),
    );
  }

  /** A slash command: deferred at once (Discord wants an answer within 3 s), then handed to core. */
  onInteraction(interaction: Interaction, client: Client<true>, rest: REST | undefined): void {
    if (this.#stopped) return;
    if (!this.#options.slashCommands || !interaction.isChatInputCommand() || !rest) return;
    const command = findSlashCommand(interaction.commandName);
    if (!command || !this.#seen.addIfAbsent(`interaction:${interaction.id}`)) return;
    const { name, now, logger } = this.#options;
    const intent = slashCommandIntent(interaction, { channelName: name, now });
    for (const [key, pending] of this.#interactions)
      if (pending.expiresAt <= now()) this.#interactions.delete(key);
    const pending: PendingInteraction = {
      applicationId: client.application.id,
      token: interaction.token,
      ephemeral: command.ephemeral,
      expiresAt: now() + INTERACTION_TOKEN_LIFETIME_MS,
    };
    this.#interactions.set(intent.id, pending);
    // Without an answer the deferred reply would say "thinking…" until the token expires.
    const answerRejection = async (message: string) => {
      this.#interactions.delete(intent.id);
      await interactionReplyTarget({ rest, ...pending }).send(`⚠️ ${message}`, 0);
    };
    deferSlashCommand(rest, interaction, command)
      .then(() => this.#forward(intent, answerRejection))
      .catch((error: unknown) => {
        this.#interactions.delete(intent.id);
        logger.warn({ err: error, command: command.name }, 'could not answer a slash command');
      });
  }

  /** One backfill at a time; a request during one runs another pass after it. */
  requestBackfill(client: Client<true>): void {
    if (this.#stopped) return;
    if (this.#backfilling) {
      this.#backfillAgain = true;
      return;
    }
    this.#backfilling = (async () => {
      do {
        this.#backfillAgain = false;
        await backfillMissedMessages({
          client,
          cursors: this.#cursor.list(),
          onMessage: (message) => this.onMessage(message, client),
          isStopped: () => this.#stopped,
          logger: this.#options.logger,
        });
      } while (this.#backfillAgain && !this.#stopped);
    })().finally(() => {
      this.#backfilling = undefined;
    });
  }

  /** `settled(taken)` says whether core took the intent (false: leave it to be fetched again). */
  #forward(
    intent: IntentInput,
    onRejected?: (message: string) => Promise<void>,
    settled?: (taken: boolean) => void,
  ): void {
    const current = this.#sink;
    if (!current) return;
    const { logger } = this.#options;
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

  /**
   * Discord never sends an update again and its history shows no edits, so an edit or delete
   * core did not take (busy, shutting down) is offered again from memory a few times.
   */
  #forwardRevision(intent: IntentInput, attempt = 0): void {
    const { logger } = this.#options;
    if (!this.#seen.addIfAbsent(`revision:${intent.id}`)) {
      logger.debug({ intentId: intent.id }, 'discord revision already seen');
      return;
    }
    this.#forward(intent, undefined, (wasTaken) => {
      if (wasTaken) return;
      this.#seen.delete(`revision:${intent.id}`);
      if (this.#stopped || attempt + 1 >= MAX_REVISION_ATTEMPTS) {
        logger.warn(
          { intentId: intent.id, attempts: attempt + 1 },
          'discord edit or delete not taken; dropped',
        );
        return;
      }
      const timer = setTimeout(() => {
        this.#revisionRetries.delete(timer);
        if (!this.#stopped) this.#forwardRevision(intent, attempt + 1);
      }, this.#options.intakeRetryDelayMs ?? 2_000);
      timer.unref?.();
      this.#revisionRetries.add(timer);
    });
  }

  #scheduleRetry(client: Client<true>): void {
    if (this.#retryTimer || this.#stopped) return;
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      this.requestBackfill(client);
    }, this.#options.intakeRetryDelayMs ?? 2_000);
    this.#retryTimer.unref?.();
  }
}
