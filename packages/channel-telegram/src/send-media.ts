import type { ReplyMedia } from '@nexus/protocol';
import { type Api, InputFile } from 'grammy';
import type { ChatAddress } from './conversation-address.ts';
import { toDeliveryError } from './telegram-errors.ts';

/** Bot API upload caps: photos up to 10 MB, anything sent as a document up to 50 MB. */
export const TELEGRAM_MAX_PHOTO_BYTES = 10 * 1024 * 1024;
export const TELEGRAM_MAX_DOCUMENT_BYTES = 50 * 1024 * 1024;
const TELEGRAM_MAX_CAPTION = 1024;
/** Images Telegram shows as photos; others (SVG, TIFF, …) go as documents so they arrive intact. */
const PHOTO_TYPES = new Set(['image/png', 'image/jpeg', 'image/webp']);

export type TelegramMediaOutcome =
  | { status: 'sent'; messageId: number }
  | { status: 'too_large'; limitBytes: number };

/**
 * Sends one reply file natively: a photo (sendPhoto) for PNG/JPEG/WebP up to 10 MB, otherwise a
 * document (sendDocument) up to 50 MB, uploaded as multipart through grammY's InputFile. A photo
 * over its cap but within the document cap goes as a document (the person still gets it).
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
  const asPhoto = PHOTO_TYPES.has(media.mimeType) && media.sizeBytes <= TELEGRAM_MAX_PHOTO_BYTES;
  const file = new InputFile(Buffer.from(media.base64, 'base64'), media.name);
  const caption = options.caption?.slice(0, TELEGRAM_MAX_CAPTION);
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
