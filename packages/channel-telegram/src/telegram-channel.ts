import type { IncomingMessage, ServerResponse } from 'node:http';
import { autoRetry } from '@grammyjs/auto-retry';
import { sequentialize } from '@grammyjs/runner';
import { passesGroupGate, refuseAfterBody, wasIntentTaken } from '@nexus/channel-kit';
import {
  type ChannelAdapter,
  type ChannelHealth,
  type ChannelStartOptions,
  type DeliverOptions,
  type FetchAttachmentOptions,
  type FetchedAttachment,
  type IntentInput,
  type IntentSink,
  type Logger,
  silentLogger,
} from '@nexus/protocol';
import { Bot, type Context, webhookCallback } from 'grammy';
import { BlockedConversations } from './blocked-conversations.ts';
import { TELEGRAM_CAPABILITIES } from './capabilities.ts';
import { conversationIdOf, parseConversationId } from './conversation-address.ts';
import { type DeliveryOutcome, deliverTelegramReply } from './deliver-reply.ts';
import { type DownloadedFile, downloadFile } from './download-file.ts';
import { fetchTelegramAttachment } from './fetch-attachment.ts';
import { nativeFetchForGrammy } from './native-fetch-for-grammy.ts';
import { nodeHttpFetch } from './node-http-fetch.ts';
import { OffsetConfirmation } from './offset-confirmation.ts';
import { PollingSupervisor } from './polling-supervisor.ts';
import { retryNetworkErrors } from './retry-network-errors.ts';
import { type TelegramChannelOptions, validateTelegramOptions } from './telegram-channel-options.ts';
import {
  classifyTelegramFailure,
  TelegramConfigError,
  TelegramIntakeDeferredError,
} from './telegram-errors.ts';
import { TelegramSender } from './telegram-sender.ts';
import { telegramEditToIntent, telegramMessageToIntent } from './to-intent.ts';
import { UpdateGate } from './update-gate.ts';
import { TelegramWebhookRequestError, webhookRequestAdapter } from './webhook-request-adapter.ts';

const DEFAULT_API_ROOT = 'https://api.telegram.org';
// `edited_message` carries edits; Telegram has no update for a deleted message in a chat.
const ALLOWED_UPDATES: ('message' | 'edited_message' | 'my_chat_member')[] = [
  'message',
  'edited_message',
  'my_chat_member',
];

/** An update is a few kilobytes (files are fetched separately); 1 MiB leaves room for long captions and entities. */
const MAX_WEBHOOK_BODY_BYTES = 1024 * 1024;

/**
 * Telegram through grammY: long polling (runner, ordered per chat and forum topic) or a webhook,
 * intents de-duplicated by `update_id` across restarts, replies streamed by editing a draft.
 */
class TelegramChannelAdapter implements ChannelAdapter {
  readonly name: string;
  readonly capabilities = TELEGRAM_CAPABILITIES;
  readonly #options: TelegramChannelOptions;
  readonly #bot: Bot;
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #gate: UpdateGate;
  readonly #confirmation: OffsetConfirmation;
  readonly #blocked: BlockedConversations;
  readonly #sender: TelegramSender;
  readonly #supervisor: PollingSupervisor | undefined;
  readonly #webhook: ((request: IncomingMessage, response: ServerResponse) => Promise<void>) | undefined;
  #sink: IntentSink | undefined;
  #running = false;
  /** Set by `stopIntake`: no update is taken or acknowledged any more. */
  #intakeStopped = false;
  #health: ChannelHealth = { status: 'stopped', detail: 'not started' };

  constructor(options: TelegramChannelOptions) {
    validateTelegramOptions(options);
    this.#options = options;
    this.name = options.name ?? 'telegram';
    this.#logger = (options.logger ?? silentLogger).child({ channel: this.name });
    this.#now = options.now ?? Date.now;
    const pollTimeoutSeconds = options.pollingTimeoutSeconds ?? 30;
    this.#bot = new Bot(options.token, {
      client: {
        apiRoot: options.apiRoot ?? DEFAULT_API_ROOT,
        timeoutSeconds: Math.max(60, pollTimeoutSeconds + 30),
        fetch: options.fetch ? nativeFetchForGrammy(options.fetch) : nodeHttpFetch(),
      },
      ...(options.botInfo ? { botInfo: options.botInfo } : {}),
    });
    this.#gate = new UpdateGate({ store: options.updateStore, logger: this.#logger, now: this.#now });
    this.#confirmation = new OffsetConfirmation({ retryDelayMs: options.intakeRetryDelayMs ?? 1_000 });
    this.#blocked = new BlockedConversations({
      onChange: (chatId, blocked) => {
        this.#logger.info(
          { chatId, blocked },
          blocked ? 'telegram: chat blocked the bot' : 'telegram: chat unblocked',
        );
        options.onBlockedChange?.({ conversationId: conversationIdOf({ chatId }), blocked });
      },
    });
    if (options.mode !== 'webhook') {
      this.#supervisor = new PollingSupervisor({
        bot: this.#bot,
        timeoutSeconds: pollTimeoutSeconds,
        stallMs: options.pollingStallMs ?? 90_000,
        allowedUpdates: ALLOWED_UPDATES,
        concurrency: options.concurrency ?? 100,
        logger: this.#logger,
        now: this.#now,
        onHealth: (health) => this.#setHealth(health),
        confirmation: this.#confirmation,
        ...(options.random ? { random: options.random } : {}),
      });
      this.#bot.api.config.use(this.#supervisor.observe);
    }
    this.#bot.api.config.use(
      autoRetry({
        maxRetryAttempts: options.retry?.maxAttempts ?? 3,
        maxDelaySeconds: options.retry?.maxDelaySeconds ?? 30,
        rethrowHttpErrors: true,
      }),
      retryNetworkErrors({ maxRetries: options.retry?.networkRetries ?? 2 }),
    );
    this.#sender = new TelegramSender({ api: this.#bot.api, logger: this.#logger });
    this.#installMiddleware();
    if (options.mode === 'webhook' && options.webhook) {
      this.#webhook = webhookCallback(this.#bot, webhookRequestAdapter(MAX_WEBHOOK_BODY_BYTES), {
        secretToken: options.webhook.secretToken,
        // Answering 200 before core took the update would acknowledge it unsafely; an error
        // answer makes Telegram retry, and core's de-duplication absorbs a late acceptance.
        onTimeout: 'throw',
        timeoutMilliseconds: 10_000,
      });
    }
  }

  /**
   * Node `http` request listener for webhook mode: answers the configured path (checking the
   * secret token) and 404 elsewhere. Telegram gets 200 only once core took the update (intake
   * only writes it to core's inbox, so that is quick); otherwise, and after `stopIntake`, it gets
   * 503 and redelivers later.
   */
  readonly webhookHandler = (request: IncomingMessage, response: ServerResponse): void => {
    const path = (request.url ?? '').split('?', 1)[0];
    if (!this.#webhook || path !== this.#options.webhook?.path || request.method !== 'POST') {
      response.writeHead(404).end();
      return;
    }
    if (this.#intakeStopped) {
      response.writeHead(503, { 'retry-after': '5', connection: 'close' }).end();
      return;
    }
    this.#webhook(request, response).catch((error: unknown) => {
      if (error instanceof TelegramIntakeDeferredError) {
        this.#logger.info({ updateId: error.updateId }, 'telegram: update not taken; left for redelivery');
        if (!response.headersSent) response.writeHead(503, { 'retry-after': '5' }).end();
        return;
      }
      if (error instanceof TelegramWebhookRequestError) {
        this.#logger.warn({ err: error }, 'telegram: webhook request refused');
        // Answered once the rest of the body is read and dropped: sent while the sender is
        // still writing, the answer would be lost to the connection's reset.
        if (!response.headersSent)
          refuseAfterBody(request, response, () => response.writeHead(error.status).end());
        return;
      }
      this.#logger.error({ err: error }, 'telegram: webhook request failed');
      if (!response.headersSent) response.writeHead(500).end();
    });
  };

  async start(options: ChannelStartOptions): Promise<void> {
    this.#sink = options.sink;
    this.#running = true;
    this.#intakeStopped = false;
    this.#setHealth({ status: 'connecting' });
    await this.#gate.load();
    try {
      await this.#bot.init();
    } catch (error) {
      if (classifyTelegramFailure(error) === 'unauthorized') {
        this.#setHealth({ status: 'down', detail: 'Telegram rejected the bot token (401 Unauthorized)' });
        throw new TelegramConfigError('Telegram rejected the bot token (401 Unauthorized)');
      }
      // Unreachable now: polling keeps trying (runner calls init again) instead of failing the daemon.
      this.#logger.warn({ err: error }, 'telegram: getMe failed; will keep trying');
    }
    options.abortSignal?.addEventListener('abort', () => void this.stop(), { once: true });
    if (this.#supervisor) {
      this.#supervisor.start();
      return;
    }
    const webhook = this.#options.webhook;
    if (webhook?.url) {
      await this.#bot.api.setWebhook(webhook.url, {
        secret_token: webhook.secretToken,
        allowed_updates: ALLOWED_UPDATES,
      });
    }
    this.#setHealth({ status: 'up', detail: 'webhook' });
  }

  /**
   * Stops polling (the open getUpdates is aborted, so nothing more is confirmed) or answers the
   * webhook 503 from now on; updates already handed to core finish, replies keep flowing.
   */
  async stopIntake(): Promise<void> {
    this.#intakeStopped = true;
    await this.#supervisor?.stop();
    await this.#gate.flush();
  }

  async stop(_options?: { abortSignal?: AbortSignal }): Promise<void> {
    this.#running = false;
    this.#intakeStopped = true;
    await this.#supervisor?.stop();
    await this.#gate.flush();
    this.#sink = undefined;
    this.#health = { status: 'stopped' };
    this.#options.onHealthChange?.({ status: 'stopped' });
  }

  async deliver(options: DeliverOptions): Promise<void> {
    await this.deliverWithOutcome(options);
  }

  /** `deliver`, returning what happened (for callers and tests that need to know). */
  async deliverWithOutcome(options: DeliverOptions): Promise<DeliveryOutcome> {
    const address = parseConversationId(options.conversation.conversationId);
    if (!address) {
      this.#logger.error(
        { conversationId: options.conversation.conversationId },
        'telegram: not a Telegram conversation id',
      );
      for await (const _event of options.events) {
        // Read to the end so the producer finishes its turn.
      }
      return { status: 'failed', messageIds: [] };
    }
    return deliverTelegramReply({
      sender: this.#sender,
      address,
      conversation: options.conversation,
      events: options.events,
      streamEditIntervalMs:
        options.conversation.kind === 'direct'
          ? (this.#options.streamEditIntervalMs ?? 1_000)
          : (this.#options.groupStreamEditIntervalMs ?? 3_000),
      typingIntervalMs: this.#options.typingIntervalMs ?? 4_000,
      blocked: this.#blocked,
      logger: this.#logger.child({ conversationId: options.conversation.conversationId }),
      now: this.#now,
      ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
    });
  }

  health(): ChannelHealth {
    return { ...this.#health };
  }

  async isGroupAdmin(options: { conversationId: string; platformId: string }): Promise<boolean> {
    const address = parseConversationId(options.conversationId);
    if (!address || !/^\d+$/u.test(options.platformId)) return false;
    const member = await this.#bot.api.getChatMember(address.chatId, Number(options.platformId));
    return member.status === 'creator' || member.status === 'administrator';
  }

  fetchAttachment(options: FetchAttachmentOptions): Promise<FetchedAttachment> {
    return fetchTelegramAttachment((download) => this.downloadAttachment(download), options);
  }

  /** Fetches an attachment's bytes on demand, refusing files over `maxAttachmentBytes` (or `maxBytes`, if smaller). */
  downloadAttachment(options: {
    platformFileId: string;
    maxBytes?: number;
    abortSignal?: AbortSignal;
  }): Promise<DownloadedFile> {
    const channelCap = this.#options.maxAttachmentBytes ?? 20 * 1024 * 1024;
    return downloadFile({
      api: this.#bot.api,
      apiRoot: this.#options.apiRoot ?? DEFAULT_API_ROOT,
      token: this.#options.token,
      ...(this.#options.fetch ? { fetch: this.#options.fetch } : {}),
      platformFileId: options.platformFileId,
      maxBytes: Math.min(channelCap, options.maxBytes ?? channelCap),
      ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
    });
  }

  isBlocked(conversationId: string): boolean {
    const address = parseConversationId(conversationId);
    return address !== undefined && this.#blocked.has(address.chatId);
  }

  stats(): { pollingRestarts: number; blockedChats: number[]; updateMark: number | undefined } {
    return {
      pollingRestarts: this.#supervisor?.restarts ?? 0,
      blockedChats: this.#blocked.list(),
      updateMark: this.#gate.mark,
    };
  }

  #setHealth(health: ChannelHealth): void {
    if (!this.#running) return;
    const changed = health.status !== this.#health.status || health.detail !== this.#health.detail;
    this.#health = health;
    if (changed) this.#options.onHealthChange?.({ ...health });
  }

  #installMiddleware(): void {
    const bot = this.#bot;
    bot.catch((error) => {
      // In webhook mode the error must reach the HTTP answer (non-2xx, so Telegram retries).
      if (error.error instanceof TelegramIntakeDeferredError) {
        if (this.#webhook) throw error.error;
        this.#logger.info({ updateId: error.error.updateId }, 'telegram: update not taken; polled again');
        return;
      }
      this.#logger.error({ err: error.error }, 'telegram: update handling failed');
    });
    bot.use(async (context, next) => {
      const updateId = context.update.update_id;
      if (!this.#gate.begin(updateId)) {
        // A copy of an update still running settles when the original does.
        if (!this.#gate.isInFlight(updateId)) this.#confirmation.settle(updateId, true);
        this.#logger.debug({ updateId }, 'telegram: duplicate update skipped');
        return;
      }
      let taken = true;
      try {
        await next();
      } catch (error) {
        // Anything but a deferred intake is a bug in handling this update: retrying cannot help.
        if (error instanceof TelegramIntakeDeferredError) taken = false;
        throw error;
      } finally {
        this.#gate.finish(updateId, taken);
        this.#confirmation.settle(updateId, taken);
      }
    });
    bot.use(sequentialize(sequenceKeyOf));
    bot.on('message', (context) => this.#onMessage(context));
    bot.on('edited_message', (context) => this.#onEditedMessage(context));
    bot.on('my_chat_member', (context) => {
      const { chat, new_chat_member: member } = context.myChatMember;
      if (member.status === 'kicked' || member.status === 'left') this.#blocked.mark(chat.id, this.#now());
      else this.#blocked.clear(chat.id);
    });
  }

  async #onMessage(context: Context): Promise<void> {
    const message = context.message;
    const sink = this.#sink;
    if (!message || !sink) return;
    this.#blocked.clear(message.chat.id);
    const intent = telegramMessageToIntent({
      message,
      bot: context.me,
      channel: this.name,
      receivedAt: new Date(this.#now()),
      raw: context.update,
    });
    if (!intent) return;
    await this.#handOver(intent, context.update.update_id, sink);
  }

  /** A person edited a message: an edit intent of it, through the same gate and sink. */
  async #onEditedMessage(context: Context): Promise<void> {
    const message = context.editedMessage;
    const sink = this.#sink;
    if (!message || !sink) return;
    const intent = telegramEditToIntent({
      message,
      updateId: context.update.update_id,
      bot: context.me,
      channel: this.name,
      receivedAt: new Date(this.#now()),
      raw: context.update,
    });
    if (!intent) {
      this.#logger.debug({ updateId: context.update.update_id }, 'telegram: edit with nothing to take');
      return;
    }
    await this.#handOver(intent, context.update.update_id, sink);
  }

  /**
   * Gate, then sink; throws `TelegramIntakeDeferredError` when core did not take the intent, so
   * the update is not confirmed and comes again.
   */
  async #handOver(intent: IntentInput, updateId: number, sink: IntentSink): Promise<void> {
    if (!passesGroupGate(intent, this.#options.groupMessages)) return;
    if (this.#intakeStopped) {
      throw new TelegramIntakeDeferredError({ updateId, reason: 'intake stopped' });
    }
    let result: Awaited<ReturnType<IntentSink>>;
    try {
      result = await sink(intent);
    } catch (error) {
      throw new TelegramIntakeDeferredError({ updateId, reason: 'the sink failed', cause: error });
    }
    if (result.status === 'rejected') {
      this.#logger.info(
        { intentId: intent.id, code: result.code },
        `telegram: intent rejected: ${result.message}`,
      );
    }
    if (!wasIntentTaken(result)) {
      throw new TelegramIntakeDeferredError({
        updateId,
        reason: result.status === 'rejected' ? result.code : '',
      });
    }
  }
}

/** Per chat, and per forum topic inside a chat: the order people expect answers in. */
function sequenceKeyOf(context: Context): string | undefined {
  const chatId = context.chat?.id;
  if (chatId === undefined) return undefined;
  const message = context.msg;
  return message?.is_topic_message && message.message_thread_id !== undefined
    ? `${chatId}:topic:${message.message_thread_id}`
    : String(chatId);
}

/** The Telegram adapter with its webhook entry points (`handleWebhook`, `webhookPath`). */
export type TelegramChannel = TelegramChannelAdapter;

export function createTelegramChannel(options: TelegramChannelOptions): TelegramChannel {
  return new TelegramChannelAdapter(options);
}
