import {
  createEditStreamer,
  type EditStreamer,
  keepTyping,
  mediaNotSentNote,
  mediaTooLargeNote,
  renderTelegramHtml,
  type TypingHandle,
} from '@nexus/channel-kit';
import type { ConversationRef, Logger, ReplyEvent, ReplyMediaEvent } from '@nexus/protocol';
import type { BlockedConversations } from './blocked-conversations.ts';
import { TELEGRAM_CAPABILITIES } from './capabilities.ts';
import { type ChatAddress, messageIdOf } from './conversation-address.ts';
import { TelegramBlockedError, TelegramDeliveryError } from './telegram-errors.ts';
import type { TelegramSender } from './telegram-sender.ts';

export interface DeliverTelegramReplyOptions {
  sender: TelegramSender;
  address: ChatAddress;
  conversation: ConversationRef;
  events: AsyncIterable<ReplyEvent>;
  streamEditIntervalMs: number;
  typingIntervalMs: number;
  blocked: BlockedConversations;
  logger: Logger;
  now: () => number;
  abortSignal?: AbortSignal;
}

export interface DeliveryOutcome {
  status: 'delivered' | 'empty' | 'blocked' | 'failed' | 'aborted';
  /** Ids of the messages that hold the reply, in order. */
  messageIds: number[];
}

/**
 * Plays a reply stream into a Telegram chat: typing while the agent works, a draft message
 * edited at most once per `streamEditIntervalMs`, the final text split at 4096 characters
 * without breaking code fences, and — in groups — the first message answering the one that
 * triggered it. Splitting measures the Markdown, which is never shorter than what Telegram
 * counts after rendering. A 403 marks the chat blocked and ends all sending at once; the rest of
 * the stream is still read so the turn completes.
 */
export async function deliverTelegramReply(options: DeliverTelegramReplyOptions): Promise<DeliveryOutcome> {
  return new TelegramReplyDelivery(options).run();
}

/** One reply on its way into one chat: the draft, the typing indicator and the files still to send. */
class TelegramReplyDelivery {
  readonly #options: DeliverTelegramReplyOptions;
  readonly #messageIds: number[] = [];
  /** In groups, the message the reply answers; its first message quotes it, once. */
  readonly #replyTarget: number | undefined;
  #replyUsed: boolean;
  #status: DeliveryOutcome['status'] = 'empty';
  #typing: TypingHandle | undefined;
  #streamer: EditStreamer | undefined;
  #streamed = '';
  /** A status line ("Restoring your preferences…") is the draft: the reply's first text edits it away. */
  #placeholder = false;
  /** Files wait for the reply's text: the person reads the answer, then gets what it made. */
  #pendingMedia: ReplyMediaEvent[] = [];

  constructor(options: DeliverTelegramReplyOptions) {
    this.#options = options;
    this.#replyTarget =
      options.conversation.kind === 'direct'
        ? undefined
        : messageIdOf(options.conversation.intentId, options.address.chatId);
    this.#replyUsed = this.#replyTarget === undefined;
  }

  async run(): Promise<DeliveryOutcome> {
    const { address, blocked, abortSignal } = this.#options;
    try {
      for await (const event of this.#options.events) {
        if (abortSignal?.aborted) {
          this.#status = 'aborted';
          break;
        }
        if (blocked.has(address.chatId)) {
          this.#status = 'blocked';
          continue;
        }
        await this.#play(event);
      }
      if (this.#streamed !== '' && this.#status !== 'aborted') await this.#finishReply(this.#streamed);
      if (this.#placeholder) await this.#dropPlaceholder();
      if (this.#status !== 'aborted') await this.#sendPendingMedia();
    } finally {
      this.#stopTyping();
    }
    return { status: this.#status, messageIds: this.#messageIds };
  }

  async #play(event: ReplyEvent): Promise<void> {
    switch (event.type) {
      case 'typing':
      case 'reply.start':
        this.#startTyping();
        break;
      case 'reply.delta':
        this.#startTyping();
        this.#placeholder = false;
        this.#streamed += event.text;
        this.#streamer ??= this.#newStreamer();
        this.#streamer.push(this.#streamed);
        break;
      case 'reply.end':
        // Typing stops first: an indicator that outlives the final text looks like more is coming.
        this.#stopTyping();
        await this.#finishReply(event.text);
        await this.#sendPendingMedia();
        break;
      case 'reply.media':
        this.#pendingMedia.push(event);
        break;
      case 'error':
        this.#stopTyping();
        // A status line still showing becomes the notice (one edit) rather than leaving first.
        if (!this.#placeholder) await this.#finishReply(this.#streamed);
        this.#placeholder = false;
        await this.#finishReply(`⚠️ ${event.message}`);
        break;
      case 'status':
        // Shown as the reply's draft, in italics, until the reply's text edits it away.
        this.#startTyping();
        if (this.#streamed !== '' || this.#placeholder) break;
        this.#placeholder = true;
        this.#streamer ??= this.#newStreamer();
        this.#streamer.push(`_${event.text.replace(/[_*]/gu, '')}_`);
        break;
    }
  }

  #note(error: unknown): void {
    const { address, blocked, logger } = this.#options;
    if (error instanceof TelegramBlockedError || blocked.has(address.chatId)) {
      this.#status = 'blocked';
      return;
    }
    this.#status = 'failed';
    const kind = error instanceof TelegramDeliveryError ? error.kind : 'unknown';
    logger.error({ err: error, kind, chatId: address.chatId }, 'telegram: reply not delivered');
  }

  /** Runs one API call unless the chat is blocked; a 403 marks it blocked. */
  async #guarded<T>(call: () => Promise<T>): Promise<T> {
    const { address, blocked, conversation } = this.#options;
    if (blocked.has(address.chatId))
      throw new TelegramBlockedError({ conversationId: conversation.conversationId });
    try {
      return await call();
    } catch (error) {
      if (error instanceof TelegramDeliveryError && error.kind === 'blocked') {
        blocked.mark(address.chatId, this.#options.now());
        this.#stopTyping();
        throw new TelegramBlockedError({ conversationId: conversation.conversationId, cause: error });
      }
      throw error;
    }
  }

  #startTyping(): void {
    const { sender, address, blocked, logger, abortSignal } = this.#options;
    if (this.#typing || blocked.has(address.chatId)) return;
    this.#typing = keepTyping({
      intervalMs: this.#options.typingIntervalMs,
      send: () => this.#guarded(() => sender.typing({ address, ...signal(abortSignal) })),
      onError: (error) => logger.debug({ err: error, chatId: address.chatId }, 'telegram: typing not shown'),
    });
  }

  #stopTyping(): void {
    this.#typing?.stop();
    this.#typing = undefined;
  }

  #newStreamer(): EditStreamer {
    const { sender, address, logger, abortSignal } = this.#options;
    return createEditStreamer({
      maxLength: TELEGRAM_CAPABILITIES.maxMessageChars,
      minIntervalMs: this.#options.streamEditIntervalMs,
      now: this.#options.now,
      send: async (markdown, index) => {
        const answer = !this.#replyUsed && index === 0;
        const id = await this.#guarded(() =>
          sender.sendHtml({
            address,
            html: renderTelegramHtml(markdown),
            plainText: markdown,
            ...(answer ? { replyToMessageId: this.#replyTarget } : {}),
            ...signal(abortSignal),
          }),
        );
        if (answer) this.#replyUsed = true;
        return String(id);
      },
      edit: (id, markdown) =>
        this.#guarded(() =>
          sender.editHtml({
            address,
            messageId: Number(id),
            html: renderTelegramHtml(markdown),
            plainText: markdown,
            ...signal(abortSignal),
          }),
        ),
      remove: (id) =>
        this.#guarded(() => sender.remove({ address, messageId: Number(id), ...signal(abortSignal) })),
      onError: (error) => {
        if (!(error instanceof TelegramBlockedError))
          logger.warn({ err: error }, 'telegram: draft update failed');
      },
    });
  }

  async #finishReply(text: string): Promise<void> {
    if (text.trim() === '' && this.#placeholder) return this.#dropPlaceholder();
    this.#placeholder = false;
    const current = this.#streamer ?? this.#newStreamer();
    this.#streamer = undefined;
    this.#streamed = '';
    if (text.trim() === '') return;
    try {
      const ids = await current.finish(text);
      this.#messageIds.push(...ids.map(Number));
      if (this.#status === 'empty') this.#status = 'delivered';
    } catch (error) {
      this.#note(error);
    }
  }

  /** No reply text replaced the status line: it goes, so no stale "Restoring…" stays in the chat. */
  async #dropPlaceholder(): Promise<void> {
    const current = this.#streamer;
    this.#streamer = undefined;
    this.#placeholder = false;
    await current
      ?.finish('')
      .catch((error: unknown) =>
        this.#options.logger.debug(
          { err: error, chatId: this.#options.address.chatId },
          'telegram: status line not removed',
        ),
      );
  }

  async #sendPendingMedia(): Promise<void> {
    const { sender, address, blocked, logger, abortSignal } = this.#options;
    const media = this.#pendingMedia;
    this.#pendingMedia = [];
    for (const event of media) {
      if (blocked.has(address.chatId) || abortSignal?.aborted) return;
      try {
        const outcome = await this.#guarded(() =>
          sender.sendMedia({
            address,
            media: event.media,
            ...(event.caption ? { caption: event.caption } : {}),
            ...signal(abortSignal),
          }),
        );
        if (outcome.status === 'sent') {
          this.#messageIds.push(outcome.messageId);
          if (this.#status === 'empty') this.#status = 'delivered';
        } else {
          await this.#finishReply(mediaTooLargeNote(event.media, outcome.limitBytes, 'Telegram'));
        }
      } catch (error) {
        if (error instanceof TelegramBlockedError) return this.#note(error);
        logger.warn(
          { err: error, chatId: address.chatId, name: event.media.name },
          'telegram: file not sent',
        );
        await this.#finishReply(mediaNotSentNote(event.media, 'Telegram'));
      }
    }
  }
}

function signal(abortSignal: AbortSignal | undefined): { abortSignal?: AbortSignal } {
  return abortSignal === undefined ? {} : { abortSignal };
}
