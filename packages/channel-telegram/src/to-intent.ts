import { asEditIntent } from '@nexus/channel-kit';
import type { Attachment, ConversationKind, IntentInput } from '@nexus/protocol';
import type { Message, MessageEntity, UserFromGetMe } from 'grammy/types';
import { conversationIdOf, intentIdOf } from './conversation-address.ts';

export interface TelegramMessageToIntentOptions {
  message: Message;
  bot: Pick<UserFromGetMe, 'id' | 'username'>;
  channel: string;
  receivedAt: Date;
  raw?: unknown;
}

/**
 * Turns a Telegram message into an Intent, or undefined when there is nothing to answer (bots,
 * service messages, empty content). `mentionsAssistant` is true for `@bot`, a text mention of
 * the bot, `/command@bot`, a bare `/command`, or a reply to one of the bot's messages — the cases
 * in which a group expects an answer. A leading `@bot` and the `@bot` suffix of a command are
 * removed from the text so the model sees what the person asked.
 */
export function telegramMessageToIntent(options: TelegramMessageToIntentOptions): IntentInput | undefined {
  const { message, bot } = options;
  const from = message.from;
  if (!from || from.is_bot) return undefined;
  const rawText = message.text ?? message.caption ?? '';
  const entities = message.entities ?? message.caption_entities ?? [];
  const attachments = attachmentsOf(message);
  if (rawText.trim() === '' && attachments.length === 0) return undefined;

  const threadId = message.is_topic_message ? message.message_thread_id : undefined;
  const kind: ConversationKind =
    message.chat.type === 'private' ? 'direct' : threadId === undefined ? 'group' : 'thread';
  const reply = message.reply_to_message;
  // In a forum topic every message "replies" to the topic's first message; that is not a reply.
  const isRealReply = reply !== undefined && !(threadId !== undefined && reply.message_id === threadId);
  const repliesToBot = isRealReply && reply.from?.id === bot.id;
  const mention = findMentions(rawText, entities, bot);

  const intent: IntentInput = {
    id: intentIdOf(message.chat.id, message.message_id),
    channel: options.channel,
    conversation: {
      id: conversationIdOf(
        threadId === undefined ? { chatId: message.chat.id } : { chatId: message.chat.id, threadId },
      ),
      kind,
      ...(message.chat.type === 'private' ? {} : { title: message.chat.title }),
    },
    sender: { platformId: String(from.id), displayName: displayNameOf(from) },
    userId: `${options.channel}:${from.id}`,
    text: stripBotAddress(rawText, mention.removals).trim(),
    attachments,
    mentionsAssistant: mention.found || repliesToBot,
    receivedAt: options.receivedAt.toISOString(),
  };
  if (isRealReply) intent.replyTo = intentIdOf(message.chat.id, reply.message_id);
  if (options.raw !== undefined) intent.raw = options.raw;
  return intent;
}

/**
 * Turns an `edited_message` into an edit of the intent `telegramMessageToIntent` made of the original
 * (same `message_id`, so the same target id). The version is `<edit_date>.<update_id>`:
 * `edit_date` has one-second resolution, so two quick edits would otherwise share an id, while
 * `update_id` is what Telegram repeats when it redelivers the same update. Undefined for what
 * `telegramMessageToIntent` would skip, and for a payload without a chat or `edit_date`.
 */
export function telegramEditToIntent(
  options: TelegramMessageToIntentOptions & { updateId: number },
): IntentInput | undefined {
  const { message } = options;
  const editDate = (message as Partial<Message>).edit_date;
  if (typeof message.chat?.id !== 'number' || typeof editDate !== 'number') return undefined;
  const content = telegramMessageToIntent(options);
  return content ? asEditIntent(content, `${editDate}.${options.updateId}`) : undefined;
}

interface Removal {
  offset: number;
  length: number;
}

function findMentions(
  text: string,
  entities: MessageEntity[],
  bot: Pick<UserFromGetMe, 'id' | 'username'>,
): { found: boolean; removals: Removal[] } {
  const handle = `@${bot.username}`.toLowerCase();
  let found = false;
  const removals: Removal[] = [];
  for (const entity of entities) {
    const slice = text.slice(entity.offset, entity.offset + entity.length);
    if (entity.type === 'mention' && slice.toLowerCase() === handle) {
      found = true;
      if (text.slice(0, entity.offset).trim() === '') removals.push(entity);
    } else if (entity.type === 'text_mention' && entity.user.id === bot.id) {
      found = true;
    } else if (entity.type === 'bot_command') {
      const at = slice.indexOf('@');
      if (at === -1) {
        found = true;
      } else if (slice.slice(at).toLowerCase() === handle) {
        found = true;
        removals.push({ offset: entity.offset + at, length: entity.length - at });
      }
    }
  }
  return { found, removals };
}

function stripBotAddress(text: string, removals: Removal[]): string {
  if (removals.length === 0) return text;
  let result = text;
  for (const removal of [...removals].sort((left, right) => right.offset - left.offset)) {
    result = result.slice(0, removal.offset) + result.slice(removal.offset + removal.length);
  }
  return result.replace(/^[\s,:]+/, '');
}

function displayNameOf(user: { first_name: string; last_name?: string; username?: string }): string {
  const name = [user.first_name, user.last_name].filter(Boolean).join(' ').trim();
  return name || user.username || 'Telegram user';
}

function attachmentsOf(message: Message): Attachment[] {
  const attachments: Attachment[] = [];
  const largestPhoto = message.photo?.at(-1);
  if (largestPhoto)
    attachments.push(
      withSize(
        { kind: 'image', platformFileId: largestPhoto.file_id, mimeType: 'image/jpeg' },
        largestPhoto.file_size,
      ),
    );
  if (message.document) {
    const { document } = message;
    const attachment: Attachment = { kind: 'document', platformFileId: document.file_id };
    if (document.file_name) attachment.name = document.file_name;
    if (document.mime_type) attachment.mimeType = document.mime_type;
    attachments.push(withSize(attachment, document.file_size));
  }
  if (message.voice) {
    const { voice } = message;
    attachments.push(
      withSize(
        { kind: 'voice', platformFileId: voice.file_id, mimeType: voice.mime_type ?? 'audio/ogg' },
        voice.file_size,
      ),
    );
  }
  if (message.audio) {
    const { audio } = message;
    const attachment: Attachment = { kind: 'audio', platformFileId: audio.file_id };
    if (audio.file_name) attachment.name = audio.file_name;
    if (audio.mime_type) attachment.mimeType = audio.mime_type;
    attachments.push(withSize(attachment, audio.file_size));
  }
  if (message.video) {
    const { video } = message;
    const attachment: Attachment = { kind: 'video', platformFileId: video.file_id };
    if (video.mime_type) attachment.mimeType = video.mime_type;
    attachments.push(withSize(attachment, video.file_size));
  }
  if (message.sticker) {
    attachments.push(
      withSize({ kind: 'sticker', platformFileId: message.sticker.file_id }, message.sticker.file_size),
    );
  }
  return attachments;
}

function withSize(attachment: Attachment, sizeBytes: number | undefined): Attachment {
  if (sizeBytes !== undefined) attachment.sizeBytes = sizeBytes;
  return attachment;
}
