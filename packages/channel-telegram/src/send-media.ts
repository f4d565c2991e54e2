import { readImageDimensions } from '@nexus/channel-kit';
import type { ReplyMedia } from '@nexus/protocol';
import { type Api, InputFile } from 'grammy';
import type { ChatAddress } from './conversation-address.ts';
import { toDeliveryError } from './telegram-errors.ts';

/** Bot API upload caps: photos up to 10 MB, anything sent as a document up to 50 MB. */
export const TELEGRAM_MAX_PHOTO_BYTES = 10 * 1024 * 1024;
export const TELEGRAM_MAX_DOCUMENT_BYTES = 50 * 1024 * 1024;
/**
 * Captions are "0-1024 characters after entities parsing"; Telegram measures text in UTF-16 code
 * units (entity offsets are UTF-16), never fewer than code points, so cutting by UTF-16 units
 * fits either way.
 */
const TELEGRAM_MAX_CAPTION = 1024;
/** sendPhoto: "width and height must not exceed 10000 in total. Width and height ratio must be at most 20." */
const TELEGRAM_MAX_PHOTO_SIDES = 10_000;
const TELEGRAM_MAX_PHOTO_RATIO = 20;
/** Images Telegram shows as photos; others (SVG, TIFF, …) go as documents so they arrive intact. */
const PHOTO_TYPES = new Set(['image/png', 'image/jpeg', 'image/webp']);

export type TelegramMediaOutcome =
  | { status: 'sent'; messageId: number }
  | { status: 'too_large'; limitBytes: number };

/**
 * Sends one reply file natively: a photo (sendPhoto) for PNG/JPEG/WebP up to 10 MB whose
 * dimensions Telegram accepts for photos, otherwise a document (sendDocument) up to 50 MB, uploaded
 * as multipart through grammY's InputFile. A picture Telegram would refuse as a photo (too large,
 * a long screenshot, a 48-MP photo, dimensions unreadable) goes as a document: the person still
 * gets it, at full resolution.
 */
export async function sendTelegramMedia(options: {
  api: Api;
  address: ChatAddress;
  media: ReplyMedia;
  caption?: string;
  replyToMessageId?: number;
  abortSignal?: AbortSignal;
}): Promise<TelegramMediaOutcome> {
  const { api, address, media } = options;
  if (media.sizeBytes > TELEGRAM_MAX_DOCUMENT_BYTES) {
    return { status: 'too_large', limitBytes: TELEGRAM_MAX_DOCUMENT_BYTES };
  }
  const bytes = Buffer.from(media.base64, 'base64');
  const asPhoto =
    PHOTO_TYPES.has(media.mimeType) && media.sizeBytes <= TELEGRAM_MAX_PHOTO_BYTES && photoSized(bytes);
  const file = new InputFile(bytes, media.name);
  const caption = options.caption === undefined ? undefined : cutCaption(options.caption);
  const other = {
    ...(caption ? { caption } : {}),
    ...(address.threadId === undefined ? {} : { message_thread_id: address.threadId }),
    ...(options.replyToMessageId === undefined
      ? {}
      : { reply_parameters: { message_id: options.replyToMessageId, allow_sending_without_reply: true } }),
  };
  const signal = options.abortSignal as Parameters<Api['sendPhoto']>[3];
  try {
    const sent = asPhoto
      ? await api.sendPhoto(address.chatId, file, other, signal)
      : await api.sendDocument(address.chatId, file, other, signal);
    return { status: 'sent', messageId: sent.message_id };
  } catch (error) {
    throw toDeliveryError(error, asPhoto ? 'sendPhoto' : 'sendDocument');
  }
}

/** Whether Telegram takes the image as a photo by its dimensions (read from the bytes). */
function photoSized(bytes: Uint8Array): boolean {
  const size = readImageDimensions(bytes);
  if (!size) return false;
  const { width, height } = size;
  return (
    width + height <= TELEGRAM_MAX_PHOTO_SIDES &&
    Math.max(width, height) / Math.min(width, height) <= TELEGRAM_MAX_PHOTO_RATIO
  );
}

/** The caption cut to Telegram's length, never between the two halves of a surrogate pair. */
export function cutCaption(caption: string): string {
  if (caption.length <= TELEGRAM_MAX_CAPTION) return caption;
  const last = caption.charCodeAt(TELEGRAM_MAX_CAPTION - 1);
  const splitsPair = last >= 0xd800 && last <= 0xdbff;
  return caption.slice(0, splitsPair ? TELEGRAM_MAX_CAPTION - 1 : TELEGRAM_MAX_CAPTION);
}
