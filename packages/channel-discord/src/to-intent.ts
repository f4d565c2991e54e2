import { asEditIntent } from '@nexus/channel-kit';
import type { Attachment, ConversationKind, IntentInput } from '@nexus/protocol';
import { MAX_INTENT_TEXT_CHARS } from '@nexus/protocol';
import {
  cleanContent,
  type Attachment as DiscordAttachment,
  type Message,
  MessageFlags,
  type PartialMessage,
  type Sticker,
} from 'discord.js';

type IgnoredReason = 'own' | 'bot' | 'webhook' | 'system' | 'empty';

export type DiscordMessageMapping =
  | { kind: 'intent'; intent: IntentInput }
  | { kind: 'ignored'; reason: IgnoredReason };

export interface DiscordMessageToIntentOptions {
  channelName: string;
  botUserId: string;
  now: () => number;
}

/**
 * Turns a discord.js message into an Intent. Addressing the bot means mentioning its user, its
 * managed role, or replying to one of its messages; the mention itself is removed from the text
 * so the model sees the question, and other mentions become readable `@names`.
 */
export function discordMessageToIntent(
  message: Message,
  options: DiscordMessageToIntentOptions,
): DiscordMessageMapping {
  if (message.author.id === options.botUserId) return { kind: 'ignored', reason: 'own' };
  if (message.webhookId) return { kind: 'ignored', reason: 'webhook' };
  if (message.author.bot) return { kind: 'ignored', reason: 'bot' };
  if (message.system) return { kind: 'ignored', reason: 'system' };

  const botRoleId = message.guild?.roles.botRoleFor(options.botUserId)?.id;
  const mentionsUser = message.mentions.users.has(options.botUserId);
  const mentionsRole = botRoleId !== undefined && message.mentions.roles.has(botRoleId);
  const repliesToBot = message.mentions.repliedUser?.id === options.botUserId;
  const direct = message.channel.isDMBased();

  const text = readableText(message, options.botUserId, botRoleId).slice(0, MAX_INTENT_TEXT_CHARS);
  const attachments = [
    ...message.attachments.map((attachment) => toAttachment(attachment, message)),
    ...message.stickers.map(toStickerAttachment),
  ].slice(0, 32);
  if (text === '' && attachments.length === 0) return { kind: 'ignored', reason: 'empty' };

  const kind: ConversationKind = direct ? 'direct' : message.channel.isThread() ? 'thread' : 'group';
  const title = conversationTitle(message);
  const intent: IntentInput = {
    id: message.id,
    channel: options.channelName,
    conversation: { id: message.channelId, kind, ...(title ? { title } : {}) },
    sender: {
      platformId: message.author.id,
      displayName: (message.member?.displayName ?? message.author.displayName).slice(0, 512),
    },
    userId: `${options.channelName}:${message.author.id}`,
    text,
    attachments,
    mentionsAssistant: direct || mentionsUser || mentionsRole || repliesToBot,
    receivedAt: new Date(options.now()).toISOString(),
    ...(message.reference?.messageId ? { replyTo: message.reference.messageId } : {}),
  };
  return { kind: 'intent', intent };
}

function readableText(message: Message, botUserId: string, botRoleId: string | undefined): string {
  let text = message.content.replace(new RegExp(`<@!?${botUserId}>`, 'g'), ' ');
  if (botRoleId) text = text.replace(new RegExp(`<@&${botRoleId}>`, 'g'), ' ');
  text = cleanContent(text, message.channel);
  return text.replace(/[ \t]{2,}/g, ' ').trim();
}

function conversationTitle(message: Message): string | undefined {
  const channel = message.channel;
  if (channel.isDMBased()) return undefined;
  const name = channel.isThread() ? channel.name : `#${channel.name}`;
  const guildName = message.guild?.name;
  return (guildName ? `${guildName} ${name}` : name).slice(0, 512);
}

function toAttachment(attachment: DiscordAttachment, message: Message): Attachment {
  const mimeType = attachment.contentType ?? undefined;
  const voice = message.flags.has(MessageFlags.IsVoiceMessage) && attachment.duration !== null;
  const family = mimeType?.split('/')[0];
  const kind: Attachment['kind'] = voice
    ? 'voice'
    : family === 'image'
      ? 'image'
      : family === 'audio'
        ? 'audio'
        : family === 'video'
          ? 'video'
          : 'document';
  return {
    kind,
    platformFileId: attachment.id,
    name: attachment.name.slice(0, 512),
    ...(mimeType ? { mimeType: mimeType.slice(0, 256) } : {}),
    sizeBytes: attachment.size,
    url: attachment.url.slice(0, 4096),
  };
}

function toStickerAttachment(sticker: Sticker): Attachment {
  return { kind: 'sticker', platformFileId: sticker.id, name: sticker.name.slice(0, 512), url: sticker.url };
}

export type DiscordEditMapping =
  | { kind: 'intent'; intent: IntentInput }
  | { kind: 'ignored'; reason: IgnoredReason | 'partial' | 'not_edited' | 'unchanged' };

/**
 * Turns a MESSAGE_UPDATE into an edit of the intent `discordMessageToIntent` made of the
 * message (same snowflake, so the same target id). Only an author's change of the content or
 * attachments counts: Discord sends updates for link embeds, pins and flags too, and those keep
 * `edited_timestamp` as it was (null on a never-edited message). The version is
 * `edited_timestamp` in epoch milliseconds, which a redelivered update repeats.
 */
export function discordEditToIntent(
  oldMessage: Message | PartialMessage,
  newMessage: Message | PartialMessage,
  options: DiscordMessageToIntentOptions,
): DiscordEditMapping {
  if (newMessage.partial) return { kind: 'ignored', reason: 'partial' };
  const editedAt = newMessage.editedTimestamp;
  if (editedAt === null || !Number.isFinite(editedAt)) return { kind: 'ignored', reason: 'not_edited' };
  if (
    !oldMessage.partial &&
    oldMessage.editedTimestamp === editedAt &&
    oldMessage.content === newMessage.content
  ) {
    return { kind: 'ignored', reason: 'unchanged' };
  }
  const normalised = discordMessageToIntent(newMessage, options);
  if (normalised.kind === 'ignored') return normalised;
  return { kind: 'intent', intent: asEditIntent(normalised.intent, editedAt) };
}
