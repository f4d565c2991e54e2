import type { Chat, Message, MessageEntity, User } from 'grammy/types';
import { detectEntities } from './detect-entities.ts';

export interface FakeTelegramChat {
  id: number;
  type: 'private' | 'group' | 'supergroup';
  /** Groups and supergroups. */
  title?: string;
  /** A supergroup with forum topics. */
  isForum?: boolean;
  /** Private chats: the person's first name (defaults to "Ada"). */
  firstName?: string;
}

/** A file the fake can serve through `getFile` and `/file/bot<token>/<path>`. */
export interface FakeTelegramFile {
  fileId: string;
  fileUniqueId: string;
  fileSize: number;
  filePath: string;
}

export interface PushMessageOptions {
  chat: FakeTelegramChat;
  /** The sender; private chats default to a person whose id is the chat id. */
  from?: User;
  text?: string;
  caption?: string;
  /** Defaults to what Telegram detects in the text or caption (mentions, commands, URLs). */
  entities?: MessageEntity[];
  /** Forum topic id (the id of the topic's first message). */
  threadId?: number;
  replyToMessageId?: number;
  photo?: FakeTelegramFile;
  document?: { file: FakeTelegramFile; fileName?: string; mimeType?: string };
  voice?: { file: FakeTelegramFile; durationSeconds?: number; mimeType?: string };
  audio?: { file: FakeTelegramFile; durationSeconds?: number; fileName?: string; mimeType?: string };
  video?: { file: FakeTelegramFile; durationSeconds?: number; mimeType?: string };
  /** A regular (static WebP) sticker. */
  sticker?: { file: FakeTelegramFile; emoji?: string };
}

export function chatObject(chat: FakeTelegramChat): Chat {
  if (chat.type === 'private') return { id: chat.id, type: 'private', first_name: chat.firstName ?? 'Ada' };
  if (chat.type === 'group') return { id: chat.id, type: 'group', title: chat.title ?? 'Group' };
  return chat.isForum
    ? { id: chat.id, type: 'supergroup', title: chat.title ?? 'Supergroup', is_forum: true }
    : { id: chat.id, type: 'supergroup', title: chat.title ?? 'Supergroup' };
}

export function defaultSender(chat: FakeTelegramChat): User {
  return { id: chat.type === 'private' ? chat.id : 42, is_bot: false, first_name: chat.firstName ?? 'Ada' };
}

/**
 * Builds the message object Telegram would deliver for what a person sent. In a forum topic a
 * message that answers nothing in particular still carries `reply_to_message` = the topic's
 * first message, exactly as Telegram does.
 */
export function buildMessage(options: {
  push: PushMessageOptions;
  messageId: number;
  date: number;
  findMessage: (messageId: number) => Message | undefined;
}): Message {
  const { push } = options;
  const message: Record<string, unknown> = {
    message_id: options.messageId,
    date: options.date,
    chat: chatObject(push.chat),
    from: push.from ?? defaultSender(push.chat),
  };
  if (push.threadId !== undefined) {
    message.message_thread_id = push.threadId;
    message.is_topic_message = true;
  }
  const replyTarget = options.findMessage(push.replyToMessageId ?? push.threadId ?? Number.NaN);
  if (replyTarget) message.reply_to_message = withoutReply(replyTarget);
  if (push.text !== undefined) {
    message.text = push.text;
    const entities = push.entities ?? detectEntities(push.text);
    if (entities.length > 0) message.entities = entities;
  }
  if (push.caption !== undefined) {
    message.caption = push.caption;
    const entities = push.entities ?? detectEntities(push.caption);
    if (entities.length > 0) message.caption_entities = entities;
  }
  if (push.photo) {
    const file = push.photo;
    message.photo = [
      {
        file_id: `${file.fileId}-thumb`,
        file_unique_id: `${file.fileUniqueId}-thumb`,
        width: 90,
        height: 90,
      },
      {
        file_id: file.fileId,
        file_unique_id: file.fileUniqueId,
        width: 1280,
        height: 960,
        file_size: file.fileSize,
      },
    ];
  }
  if (push.document) {
    const { file } = push.document;
    message.document = {
      file_id: file.fileId,
      file_unique_id: file.fileUniqueId,
      file_size: file.fileSize,
      ...(push.document.fileName === undefined ? {} : { file_name: push.document.fileName }),
      ...(push.document.mimeType === undefined ? {} : { mime_type: push.document.mimeType }),
    };
  }
  if (push.voice) {
    const { file } = push.voice;
    message.voice = {
      file_id: file.fileId,
      file_unique_id: file.fileUniqueId,
      file_size: file.fileSize,
      duration: push.voice.durationSeconds ?? 3,
      mime_type: push.voice.mimeType ?? 'audio/ogg',
    };
  }
  addAudioVisual(message, push);
  return message as unknown as Message;
}

function withoutReply(message: Message): Message {
  const { reply_to_message: _ignored, ...rest } = message as Message & { reply_to_message?: unknown };
  return rest as Message;
}

export interface EditMessageOptions {
  chatId: number;
  messageId: number;
  /** New text of a text message. */
  text?: string;
  /** New caption of a media message. */
  caption?: string;
  /** Defaults to what Telegram detects in the new text or caption. */
  entities?: MessageEntity[];
  /** Unix seconds; defaults to now, and never before the message's previous edit. */
  editDate?: number;
}

/**
 * The message after a person edited it, as Telegram sends it in `edited_message`: the same
 * `message_id`, `date` and `reply_to_message`, the new text or caption with freshly detected
 * entities, and `edit_date`.
 */
export function buildEditedMessage(original: Message, edit: EditMessageOptions): Message {
  const previous = (original as Message & { edit_date?: number }).edit_date ?? 0;
  const message: Record<string, unknown> = {
    ...original,
    edit_date: edit.editDate ?? Math.max(Math.floor(Date.now() / 1000), previous),
  };
  if (edit.text !== undefined) {
    message.text = edit.text;
    const entities = edit.entities ?? detectEntities(edit.text);
    if (entities.length > 0) message.entities = entities;
    else delete message.entities;
  }
  if (edit.caption !== undefined) {
    message.caption = edit.caption;
    const entities = edit.entities ?? detectEntities(edit.caption);
    if (entities.length > 0) message.caption_entities = entities;
    else delete message.caption_entities;
  }
  return message as unknown as Message;
}

/** The Bot API's Audio, Video and Sticker objects, with the fields Telegram always sends. */
function addAudioVisual(message: Record<string, unknown>, push: PushMessageOptions): void {
  if (push.audio) {
    const { file } = push.audio;
    message.audio = {
      file_id: file.fileId,
      file_unique_id: file.fileUniqueId,
      file_size: file.fileSize,
      duration: push.audio.durationSeconds ?? 30,
      mime_type: push.audio.mimeType ?? 'audio/mpeg',
      ...(push.audio.fileName === undefined ? {} : { file_name: push.audio.fileName }),
    };
  }
  if (push.video) {
    const { file } = push.video;
    message.video = {
      file_id: file.fileId,
      file_unique_id: file.fileUniqueId,
      file_size: file.fileSize,
      width: 640,
      height: 360,
      duration: push.video.durationSeconds ?? 5,
      mime_type: push.video.mimeType ?? 'video/mp4',
    };
  }
  if (push.sticker) {
    const { file } = push.sticker;
    message.sticker = {
      file_id: file.fileId,
      file_unique_id: file.fileUniqueId,
      file_size: file.fileSize,
      type: 'regular',
      width: 512,
      height: 512,
      is_animated: false,
      is_video: false,
      emoji: push.sticker.emoji ?? '👍',
    };
  }
}
