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

/** Telegram's limit per message, in UTF-16 code units of visible text. */

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
  const { sender, address, blocked, logger, abortSignal } = options;
  const messageIds: number[] = [];
  const replyTarget =
    options.conversation.kind === 'direct'
      ? undefined
      : messageIdOf(options.conversation.intentId, address.chatId);
  let replyUsed = replyTarget === undefined;
  let status: DeliveryOutcome['status'] = 'empty';
  let typing: TypingHandle | undefined;
  let streamer: EditStreamer | undefined;
  let streamed = '';
  /** A status line ("Restoring your preferences…") is the draft: the reply's first text edits it away. */
  let placeholder = false;
  /** Files wait for the reply's text: the person reads the answer, then gets what it made. */
  let pendingMedia: ReplyMediaEvent[] = [];

  const note = (error: unknown): void => {
    if (error instanceof TelegramBlockedError || blocked.has(address.chatId)) {
      status = 'blocked';
      return;
    }
    status = 'failed';
    const kind = error instanceof TelegramDeliveryError ? error.kind : 'unknown';
    logger.error({ err: error, kind, chatId: address.chatId }, 'telegram: reply not delivered');
  };
  /** Runs one API call unless the chat is blocked; a 403 marks it blocked. */
  const guarded = async <T>(call: () => Promise<T>): Promise<T> => {
    if (blocked.has(address.chatId))
      throw new TelegramBlockedError({ conversationId: options.conversation.conversationId });
    try {
      return await call();
    } catch (error) {
      if (error instanceof TelegramDeliveryError && error.kind === 'blocked') {
        blocked.mark(address.chatId, options.now());
        stopTyping();
        throw new TelegramBlockedError({ conversationId: options.conversation.conversationId, cause: error });
      }
      throw error;
    }
  };
  const startTyping = (): void => {
    if (typing || blocked.has(address.chatId)) return;
    typing = keepTyping({
      intervalMs: options.typingIntervalMs,
      send: () => guarded(() => sender.typing({ address, ...signal(abortSignal) })),
      onError: (error) => logger.debug({ err: error, chatId: address.chatId }, 'telegram: typing not shown'),
    });
  };
  const stopTyping = (): void => {
    typing?.stop();
    typing = undefined;
  };
  const newStreamer = (): EditStreamer =>
    createEditStreamer({
      maxLength: TELEGRAM_CAPABILITIES.maxMessageChars,
      minIntervalMs: options.streamEditIntervalMs,
      now: options.now,
      send: async (markdown, index) => {
        const answer = !replyUsed && index === 0;
        const id = await guarded(() =>
          sender.sendHtml({
            address,
            html: renderTelegramHtml(markdown),
            plainText: markdown,
            ...(answer ? { replyToMessageId: replyTarget } : {}),
            ...signal(abortSignal),
          }),
        );
        if (answer) replyUsed = true;
        return String(id);
      },
      edit: (id, markdown) =>
        guarded(() =>
          sender.editHtml({
            address,
            messageId: Number(id),
            html: renderTelegramHtml(markdown),
            plainText: markdown,
            ...signal(abortSignal),
          }),
        ),
      remove: (id) =>
        guarded(() => sender.remove({ address, messageId: Number(id), ...signal(abortSignal) })),
      onError: (error) => {
        if (!(error instanceof TelegramBlockedError))
          logger.warn({ err: error }, 'telegram: draft update failed');
      },
    });
  const finishReply = async (text: string): Promise<void> => {
    if (text.trim() === '' && placeholder) return dropPlaceholder();
    placeholder = false;
    const current = streamer ?? newStreamer();
    streamer = undefined;
    streamed = '';
    if (text.trim() === '') return;
    try {
      const ids = await current.finish(text);
      messageIds.push(...ids.map(Number));
      if (status === 'empty') status = 'delivered';
    } catch (error) {
      note(error);
    }
  };

  /** No reply text replaced the status line: it goes, so no stale "Restoring…" stays in the chat. */
  const dropPlaceholder = async (): Promise<void> => {
    const current = streamer;
    streamer = undefined;
    placeholder = false;
    await current
      ?.finish('')
      .catch((error: unknown) =>
        logger.debug({ err: error, chatId: address.chatId }, 'telegram: status line not removed'),
      );
  };

  const sendPendingMedia = async (): Promise<void> => {
    const media = pendingMedia;
    pendingMedia = [];
    for (const event of media) {
      if (blocked.has(address.chatId) || abortSignal?.aborted) return;
      try {
        const outcome = await guarded(() =>
          sender.sendMedia({
            address,
            media: event.media,
            ...(event.caption ? { caption: event.caption } : {}),
            ...signal(abortSignal),
          }),
        );
        if (outcome.status === 'sent') {
          messageIds.push(outcome.messageId);
          if (status === 'empty') status = 'delivered';
        } else {
          await finishReply(mediaTooLargeNote(event.media, outcome.limitBytes, 'Telegram'));
        }
      } catch (error) {
        if (error instanceof TelegramBlockedError) return note(error);
        logger.warn(
          { err: error, chatId: address.chatId, name: event.media.name },
          'telegram: file not sent',
        );
        await finishReply(mediaNotSentNote(event.media, 'Telegram'));
      }
    }
  };

  try {
    for await (const event of options.events) {
      if (abortSignal?.aborted) {
        status = 'aborted';
        break;
      }
      if (blocked.has(address.chatId)) {
        status = 'blocked';
        continue;
      }
      switch (event.type) {
        case 'typing':
        case 'reply.start':
          startTyping();
          break;
        case 'reply.delta':
          startTyping();
          placeholder = false;
          streamed += event.text;
          streamer ??= newStreamer();
          streamer.push(streamed);
          break;
        case 'reply.end':
          // Typing stops first: an indicator that outlives the final text looks like more is coming.
          stopTyping();
          await finishReply(event.text);
          await sendPendingMedia();
          break;
        case 'reply.media':
          pendingMedia.push(event);
          break;
        case 'error':
          stopTyping();
          // A status line still showing becomes the notice (one edit) rather than leaving first.
          if (!placeholder) await finishReply(streamed);
          placeholder = false;
          await finishReply(`⚠️ ${event.message}`);
          break;
        case 'status':
          // Shown as the reply's draft, in italics, until the reply's text edits it away.
          startTyping();
          if (streamed !== '' || placeholder) break;
          placeholder = true;
          streamer ??= newStreamer();
          streamer.push(`_${event.text.replace(/[_*]/gu, '')}_`);
          break;
      }
    }
    if (streamed !== '' && status !== 'aborted') await finishReply(streamed);
    if (placeholder) await dropPlaceholder();
    if (status !== 'aborted') await sendPendingMedia();
  } finally {
    stopTyping();
  }
  return { status, messageIds };
}

function signal(abortSignal: AbortSignal | undefined): { abortSignal?: AbortSignal } {
  return abortSignal === undefined ? {} : { abortSignal };
}
