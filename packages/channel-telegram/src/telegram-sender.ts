import type { Logger, ReplyMedia } from '@nexus/protocol';
import type { Api } from 'grammy';
import type { ChatAddress } from './conversation-address.ts';
import { sendTelegramMedia, type TelegramMediaOutcome } from './send-media.ts';
import { classifyTelegramFailure, toDeliveryError } from './telegram-errors.ts';

type Signal = Parameters<Api['sendMessage']>[3];

export interface SendHtmlOptions {
  address: ChatAddress;
  html: string;
  /** Sent instead when Telegram refuses the HTML (the Markdown source reads well as plain text). */
  plainText: string;
  /** Message this one answers (groups: the triggering message). */
  replyToMessageId?: number | undefined;
  abortSignal?: AbortSignal;
}

/**
 * The Bot API calls a reply needs. HTML that Telegram refuses ("can't parse entities") is sent
 * again as its plain text instead of being lost; "message is not modified" is not an error.
 * Failures come out as TelegramDeliveryError with a `kind` the caller acts on.
 */
export class TelegramSender {
  readonly #api: Api;
  readonly #logger: Logger;

  constructor(options: { api: Api; logger: Logger }) {
    this.#api = options.api;
    this.#logger = options.logger;
  }

  async sendHtml(options: SendHtmlOptions): Promise<number> {
    const { address } = options;
    const other = {
      ...(address.threadId === undefined ? {} : { message_thread_id: address.threadId }),
      ...(options.replyToMessageId === undefined
        ? {}
        : { reply_parameters: { message_id: options.replyToMessageId, allow_sending_without_reply: true } }),
      link_preview_options: { is_disabled: true },
    };
    const signal = options.abortSignal as Signal;
    try {
      const sent = await this.#api.sendMessage(
        address.chatId,
        options.html,
        { ...other, parse_mode: 'HTML' },
        signal,
      );
      return sent.message_id;
    } catch (error) {
      if (classifyTelegramFailure(error) !== 'cant_parse_entities')
        throw toDeliveryError(error, 'sendMessage');
      this.#logger.warn({ err: error, chatId: address.chatId }, 'telegram: HTML refused, sending plain text');
    }
    try {
      const sent = await this.#api.sendMessage(address.chatId, options.plainText, other, signal);
      return sent.message_id;
    } catch (error) {
      throw toDeliveryError(error, 'sendMessage');
    }
  }

  async editHtml(options: {
    address: ChatAddress;
    messageId: number;
    html: string;
    plainText: string;
    abortSignal?: AbortSignal;
  }): Promise<void> {
    const { address } = options;
    const signal = options.abortSignal as Signal;
    const edit = async (text: string, parseMode: 'HTML' | undefined) => {
      try {
        const other = parseMode ? { parse_mode: parseMode, link_preview_options: { is_disabled: true } } : {};
        await this.#api.editMessageText(address.chatId, options.messageId, text, other, signal);
        return true;
      } catch (error) {
        const kind = classifyTelegramFailure(error);
        if (kind === 'not_modified') return true;
        if (kind === 'cant_parse_entities' && parseMode) {
          this.#logger.warn(
            { err: error, chatId: address.chatId },
            'telegram: HTML refused, editing as plain text',
          );
          return false;
        }
        throw toDeliveryError(error, 'editMessageText');
      }
    };
    if (!(await edit(options.html, 'HTML'))) await edit(options.plainText, undefined);
  }

  async remove(options: {
    address: ChatAddress;
    messageId: number;
    abortSignal?: AbortSignal;
  }): Promise<void> {
    try {
      await this.#api.deleteMessage(options.address.chatId, options.messageId, options.abortSignal as Signal);
    } catch (error) {
      throw toDeliveryError(error, 'deleteMessage');
    }
  }

  sendMedia(options: {
    address: ChatAddress;
    media: ReplyMedia;
    caption?: string;
    replyToMessageId?: number;
    abortSignal?: AbortSignal;
  }): Promise<TelegramMediaOutcome> {
    return sendTelegramMedia({ api: this.#api, ...options });
  }

  async typing(options: { address: ChatAddress; abortSignal?: AbortSignal }): Promise<void> {
    const { address } = options;
    const other = address.threadId === undefined ? {} : { message_thread_id: address.threadId };
    try {
      await this.#api.sendChatAction(address.chatId, 'typing', other, options.abortSignal as Signal);
    } catch (error) {
      throw toDeliveryError(error, 'sendChatAction');
    }
  }
}
