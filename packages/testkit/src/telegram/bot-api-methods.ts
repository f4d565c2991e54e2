import { readImageDimensions } from '@nexus/channel-kit';
import type { Message, UserFromGetMe } from 'grammy/types';
import { chatObject, type FakeTelegramChat, type FakeTelegramFile } from './build-message.ts';
import { errorBody, type FailureBody } from './fake-failure.ts';
import { isUploadedFile } from './multipart-payload.ts';
import { parseTelegramHtml } from './parse-telegram-html.ts';

const MAX_TEXT_LENGTH = 4096;
const MAX_DOWNLOAD_BYTES = 20 * 1024 * 1024;
/** What the Bot API takes from a bot: photos up to 10 MB, other files up to 50 MB. */
const MAX_PHOTO_UPLOAD_BYTES = 10 * 1024 * 1024;
const MAX_DOCUMENT_UPLOAD_BYTES = 50 * 1024 * 1024;
const MAX_CAPTION_LENGTH = 1024;

export interface RecordedApiCall {
  method: string;
  payload: Record<string, unknown>;
  /** When the request arrived (the fake's clock). */
  at: number;
  /** HTTP status answered; 0 when the connection was dropped. */
  status: number;
  description?: string;
}

/** One message the bot sent, as people see it now (after any edits). */
export interface BotMessage {
  chatId: number;
  messageId: number;
  threadId?: number;
  replyToMessageId?: number;
  /** Visible text: HTML tags removed and entities decoded when sent with `parse_mode: 'HTML'`. */
  text: string;
  /** The text exactly as the bot sent it. */
  sentText: string;
  parseMode?: string;
  /** Tags used (HTML only), e.g. `['b', 'pre', 'code']`. */
  tags: string[];
  edits: number;
  /** Set for sendPhoto/sendDocument: the file as uploaded; `text` is then the caption. */
  media?: { type: 'photo' | 'document'; fileName: string; bytes: Uint8Array };
}

type Outcome = { ok: true; result: unknown } | FailureBody;

/** The Bot API methods besides updates and webhooks, over the fake's chat, message and file state. */
export class BotApiMethods {
  readonly #botInfo: UserFromGetMe;
  readonly #recordCalls: boolean;
  readonly #chats = new Map<number, FakeTelegramChat>();
  readonly #messages = new Map<string, Message>();
  readonly #botMessages: BotMessage[] = [];
  readonly #lastMessageId = new Map<number, number>();
  readonly #files = new Map<string, { file: FakeTelegramFile; content: Uint8Array }>();
  readonly #blocked = new Set<number>();
  readonly #administrators = new Map<number, ReadonlySet<number>>();
  readonly #calls: RecordedApiCall[] = [];

  constructor(options: { botInfo: UserFromGetMe; recordCalls: boolean }) {
    this.#botInfo = options.botInfo;
    this.#recordCalls = options.recordCalls;
  }

  record(call: RecordedApiCall): void {
    if (this.#recordCalls) this.#calls.push(call);
  }

  calls(method?: string): RecordedApiCall[] {
    return method === undefined ? [...this.#calls] : this.#calls.filter((call) => call.method === method);
  }

  botMessages(chatId?: number): BotMessage[] {
    return this.#botMessages.filter((message) => chatId === undefined || message.chatId === chatId);
  }

  nextMessageId(chatId: number): number {
    const next = (this.#lastMessageId.get(chatId) ?? 0) + 1;
    this.#lastMessageId.set(chatId, next);
    return next;
  }

  rememberChat(chat: FakeTelegramChat): void {
    this.#chats.set(chat.id, chat);
  }

  storeMessage(message: Message): void {
    this.#messages.set(`${message.chat.id}:${message.message_id}`, message);
  }

  findMessage(chatId: number, messageId: number): Message | undefined {
    return this.#messages.get(`${chatId}:${messageId}`);
  }

  setChatAdministrators(chatId: number, userIds: readonly number[]): void {
    this.#administrators.set(chatId, new Set(userIds));
  }

  blockChat(chatId: number): void {
    this.#blocked.add(chatId);
  }

  unblockChat(chatId: number): void {
    this.#blocked.delete(chatId);
  }

  addFile(options: { content: Uint8Array; filePath?: string }): FakeTelegramFile {
    const index = this.#files.size + 1;
    const file: FakeTelegramFile = {
      fileId: `file-${index}`,
      fileUniqueId: `unique-${index}`,
      fileSize: options.content.byteLength,
      filePath: options.filePath ?? `documents/file_${index}.bin`,
    };
    this.#files.set(file.fileId, { file, content: options.content });
    return file;
  }

  fileContent(filePath: string): Uint8Array | undefined {
    for (const entry of this.#files.values()) if (entry.file.filePath === filePath) return entry.content;
    return undefined;
  }

  call(method: string, payload: Record<string, unknown>): Outcome {
    switch (method) {
      case 'getMe':
        return { ok: true, result: this.#botInfo };
      case 'getWebhookInfo':
        return { ok: true, result: { url: '', has_custom_certificate: false, pending_update_count: 0 } };
      case 'sendMessage':
        return this.#sendMessage(payload);
      case 'editMessageText':
        return this.#editMessageText(payload);
      case 'sendPhoto':
        return this.#sendMedia('photo', payload);
      case 'sendDocument':
        return this.#sendMedia('document', payload);
      case 'sendChatAction':
        return this.#chatGuard(payload) ?? { ok: true, result: true };
      case 'getFile':
        return this.#getFile(payload);
      case 'getChatMember':
        return this.#getChatMember(payload);
      case 'deleteMessage':
        return this.#deleteMessage(payload);
      case 'setMyCommands':
      case 'setMessageReaction':
        return { ok: true, result: true };
      default:
        return errorBody(404, 'Not Found');
    }
  }

  /** A deleted bot message leaves `botMessages`; one that is not there is a no-op, as before. */
  #deleteMessage(payload: Record<string, unknown>): Outcome {
    const guard = this.#chatGuard(payload);
    if (guard) return guard;
    const index = this.#botMessages.findIndex(
      (message) =>
        message.chatId === Number(payload.chat_id) && message.messageId === Number(payload.message_id),
    );
    if (index >= 0) this.#botMessages.splice(index, 1);
    return { ok: true, result: true };
  }

  /**
   * A ChatMember: `administrator` for those set with setChatAdministrators, else `member`.
   * Simplified: the user object carries only the id, and `left`/`kicked` members are not modelled.
   */
  #getChatMember(payload: Record<string, unknown>): Outcome {
    const chatId = Number(payload.chat_id);
    const userId = Number(payload.user_id);
    if (!this.#chats.has(chatId)) return errorBody(400, 'Bad Request: chat not found');
    if (!Number.isSafeInteger(userId)) return errorBody(400, 'Bad Request: invalid user_id specified');
    const user = { id: userId, is_bot: false, first_name: '' };
    return this.#administrators.get(chatId)?.has(userId)
      ? { ok: true, result: { status: 'administrator', user, can_be_edited: false, is_anonymous: false } }
      : { ok: true, result: { status: 'member', user } };
  }

  #chatGuard(payload: Record<string, unknown>): Outcome | undefined {
    const chatId = Number(payload.chat_id);
    if (!this.#chats.has(chatId)) return errorBody(400, 'Bad Request: chat not found');
    if (this.#blocked.has(chatId)) return errorBody(403, 'Forbidden: bot was blocked by the user');
    return undefined;
  }

  #render(payload: Record<string, unknown>): Outcome | { ok: true; text: string; tags: string[] } {
    const sentText = typeof payload.text === 'string' ? payload.text : '';
    let text = sentText;
    let tags: string[] = [];
    if (payload.parse_mode === 'HTML') {
      const parsed = parseTelegramHtml(sentText);
      if (!parsed.ok) return errorBody(400, parsed.description);
      ({ text, tags } = parsed.value);
    } else if (payload.parse_mode !== undefined) {
      return errorBody(400, `Bad Request: unsupported parse_mode in the fake: ${payload.parse_mode}`);
    }
    if (text.trim().length === 0) return errorBody(400, 'Bad Request: message text is empty');
    if (text.length > MAX_TEXT_LENGTH) return errorBody(400, 'Bad Request: message is too long');
    return { ok: true, text, tags };
  }

  #sendMessage(payload: Record<string, unknown>): Outcome {
    const guard = this.#chatGuard(payload);
    if (guard) return guard;
    const rendered = this.#render(payload);
    if (!('text' in rendered)) return rendered;
    const chatId = Number(payload.chat_id);
    const reply = payload.reply_parameters as
      | { message_id?: number; allow_sending_without_reply?: boolean }
      | undefined;
    const replyTarget =
      reply?.message_id === undefined ? undefined : this.findMessage(chatId, reply.message_id);
    if (reply?.message_id !== undefined && !replyTarget && !reply.allow_sending_without_reply) {
      return errorBody(400, 'Bad Request: message to be replied not found');
    }
    const messageId = this.nextMessageId(chatId);
    const threadId = typeof payload.message_thread_id === 'number' ? payload.message_thread_id : undefined;
    const message = this.#messageObject(chatId, messageId, rendered.text, threadId, replyTarget);
    this.storeMessage(message);
    const botMessage: BotMessage = {
      chatId,
      messageId,
      text: rendered.text,
      sentText: String(payload.text),
      tags: rendered.tags,
      edits: 0,
    };
    if (threadId !== undefined) botMessage.threadId = threadId;
    if (replyTarget) botMessage.replyToMessageId = replyTarget.message_id;
    if (typeof payload.parse_mode === 'string') botMessage.parseMode = payload.parse_mode;
    this.#botMessages.push(botMessage);
    return { ok: true, result: message };
  }

  /** An uploaded photo must be an image Telegram can decode; both kinds have their size caps. */
  #sendMedia(type: 'photo' | 'document', payload: Record<string, unknown>): Outcome {
    const guard = this.#chatGuard(payload);
    if (guard) return guard;
    const file = payload[type];
    if (!isUploadedFile(file)) return errorBody(400, `Bad Request: there is no ${type} in the request`);
    const limit = type === 'photo' ? MAX_PHOTO_UPLOAD_BYTES : MAX_DOCUMENT_UPLOAD_BYTES;
    if (file.bytes.byteLength > limit) return errorBody(413, 'Request Entity Too Large');
    if (type === 'photo' && !looksLikeImage(file.bytes))
      return errorBody(400, 'Bad Request: IMAGE_PROCESS_FAILED');
    if (type === 'photo' && !photoDimensionsAllowed(file.bytes))
      return errorBody(400, 'Bad Request: PHOTO_INVALID_DIMENSIONS');
    const caption = typeof payload.caption === 'string' ? payload.caption : '';
    if (caption.length > MAX_CAPTION_LENGTH)
      return errorBody(400, 'Bad Request: message caption is too long');
    const chatId = Number(payload.chat_id);
    const messageId = this.nextMessageId(chatId);
    const message = this.#messageObject(
      chatId,
      messageId,
      caption,
      undefined,
      undefined,
    ) as unknown as Record<string, unknown>;
    delete message.text;
    if (caption !== '') message.caption = caption;
    message[type] =
      type === 'photo'
        ? [
            {
              file_id: `photo-${messageId}`,
              file_unique_id: `u-${messageId}`,
              ...(readImageDimensions(file.bytes) ?? { width: 1, height: 1 }),
            },
          ]
        : { file_id: `document-${messageId}`, file_unique_id: `u-${messageId}`, file_name: file.fileName };
    this.storeMessage(message as unknown as Message);
    this.#botMessages.push({
      chatId,
      messageId,
      text: caption,
      sentText: caption,
      tags: [],
      edits: 0,
      media: { type, fileName: file.fileName, bytes: file.bytes },
    });
    return { ok: true, result: message };
  }

  #editMessageText(payload: Record<string, unknown>): Outcome {
    const guard = this.#chatGuard(payload);
    if (guard) return guard;
    const chatId = Number(payload.chat_id);
    const target = this.#botMessages.find(
      (message) => message.chatId === chatId && message.messageId === Number(payload.message_id),
    );
    if (!target) return errorBody(400, 'Bad Request: message to edit not found');
    const rendered = this.#render(payload);
    if (!('text' in rendered)) return rendered;
    const parseMode = typeof payload.parse_mode === 'string' ? payload.parse_mode : undefined;
    if (
      rendered.text === target.text &&
      parseMode === target.parseMode &&
      rendered.tags.join() === target.tags.join()
    ) {
      return errorBody(
        400,
        'Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message',
      );
    }
    target.text = rendered.text;
    target.sentText = String(payload.text);
    target.tags = rendered.tags;
    target.edits++;
    if (parseMode === undefined) delete target.parseMode;
    else target.parseMode = parseMode;
    const message = this.#messageObject(chatId, target.messageId, rendered.text, target.threadId, undefined);
    return { ok: true, result: { ...message, edit_date: Math.floor(Date.now() / 1000) } };
  }

  #getFile(payload: Record<string, unknown>): Outcome {
    const entry = this.#files.get(String(payload.file_id));
    if (!entry) return errorBody(400, 'Bad Request: invalid file_id');
    if (entry.file.fileSize > MAX_DOWNLOAD_BYTES) return errorBody(400, 'Bad Request: file is too big');
    const { file } = entry;
    return {
      ok: true,
      result: {
        file_id: file.fileId,
        file_unique_id: file.fileUniqueId,
        file_size: file.fileSize,
        file_path: file.filePath,
      },
    };
  }

  #messageObject(
    chatId: number,
    messageId: number,
    text: string,
    threadId: number | undefined,
    replyTarget: Message | undefined,
  ): Message {
    const chat = this.#chats.get(chatId);
    const message: Record<string, unknown> = {
      message_id: messageId,
      date: Math.floor(Date.now() / 1000),
      chat: chat ? chatObject(chat) : { id: chatId, type: 'private', first_name: 'Ada' },
      from: {
        id: this.#botInfo.id,
        is_bot: true,
        first_name: this.#botInfo.first_name,
        username: this.#botInfo.username,
      },
      text,
    };
    if (threadId !== undefined) {
      message.message_thread_id = threadId;
      message.is_topic_message = true;
    }
    if (replyTarget) message.reply_to_message = replyTarget;
    return message as unknown as Message;
  }
}

/**
 * sendPhoto: "The photo's width and height must not exceed 10000 in total. Width and height ratio
 * must be at most 20." (core.telegram.org/bots/api#sendphoto). An image whose size cannot be read
 * is let through here; its bytes passed `looksLikeImage` already.
 */
function photoDimensionsAllowed(bytes: Uint8Array): boolean {
  const size = readImageDimensions(bytes);
  if (!size) return true;
  const { width, height } = size;
  return width + height <= 10_000 && Math.max(width, height) / Math.min(width, height) <= 20;
}

/** PNG, JPEG, GIF or WebP by their magic bytes: what Telegram's photo processing accepts. */
function looksLikeImage(bytes: Uint8Array): boolean {
  const starts = (...magic: number[]) => magic.every((byte, index) => bytes[index] === byte);
  return (
    starts(0x89, 0x50, 0x4e, 0x47) ||
    starts(0xff, 0xd8, 0xff) ||
    starts(0x47, 0x49, 0x46, 0x38) ||
    (starts(0x52, 0x49, 0x46, 0x46) && bytes[8] === 0x57 && bytes[9] === 0x45)
  );
}
