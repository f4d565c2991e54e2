import { fetchWithPolicy, type OutboundFetchPolicy } from '@nexus/channel-kit';
import { type FetchAttachmentOptions, type FetchedAttachment, NexusError } from '@nexus/protocol';
import {
  extractMessageContent,
  getContentType,
  type MediaType,
  type proto,
  type WAMessage,
} from '@whiskeysockets/baileys';
import { decryptWhatsAppMedia } from './decrypt-whatsapp-media.ts';
import { parseWhatsAppIntentId } from './to-intent.ts';
import { whatsAppMediaUrl } from './whatsapp-media-url.ts';

/** Finds a received message by chat and id (the channel's SQLite message store). */
export type FindStoredMessage = (options: { remoteJid?: string | null; id: string }) => WAMessage | undefined;

/** AES-CBC pads to 16 bytes and a 10-byte MAC follows: the most encryption adds. */
const ENCRYPTION_OVERHEAD = 16 + 10;

/**
 * The port's `fetchAttachment` for WhatsApp: the message the attachment came with is read back
 * from the store (its `platformFileId` is the intent id, `<chat>/<message id>`). Its media URL is
 * named by the sender's client, so the download goes through the shared outbound policy
 * (WhatsApp's hosts only, public addresses only, a size cap and a deadline) rather than
 * Baileys' `downloadMediaMessage`, which fetches whatever the message names; the bytes are then
 * decrypted with WhatsApp's media keys. Voice notes (PTT) are OGG/Opus, as on Telegram.
 */
export async function fetchWhatsAppAttachment(
  find: FindStoredMessage,
  policy: OutboundFetchPolicy,
  options: FetchAttachmentOptions,
): Promise<FetchedAttachment> {
  const address = parseWhatsAppIntentId(options.attachment.platformFileId ?? '');
  const message = address ? find({ remoteJid: address.remoteJid, id: address.messageId }) : undefined;
  const content = extractMessageContent(message?.message);
  const contentType = content ? getContentType(content) : undefined;
  const media = (contentType ? content?.[contentType] : undefined) as proto.Message.IImageMessage | undefined;
  if (!message || !contentType || !media || typeof media !== 'object') {
    throw new NexusError({
      code: 'attachment_unavailable',
      message: 'The WhatsApp message is no longer stored.',
    });
  }
  const url = whatsAppMediaUrl(media);
  if (!url || !media.mediaKey) {
    throw new NexusError({ code: 'attachment_unavailable', message: 'The WhatsApp message names no media.' });
  }
  if (Number(media.fileLength ?? 0) > options.maxBytes) throw tooLarge(options.maxBytes);
  const encrypted = await fetchWithPolicy(policy, {
    url,
    maxBytes: options.maxBytes + ENCRYPTION_OVERHEAD,
    headers: { Origin: 'https://web.whatsapp.com' },
    ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
  });
  const bytes = await decryptWhatsAppMedia(
    encrypted,
    media.mediaKey,
    contentType.replace('Message', '') as MediaType,
  );
  if (bytes.length > options.maxBytes) throw tooLarge(options.maxBytes);
  return {
    bytes,
    ...(options.attachment.mimeType ? { mimeType: options.attachment.mimeType } : {}),
    ...(options.attachment.name ? { name: options.attachment.name } : {}),
  };
}

function tooLarge(maxBytes: number): NexusError {
  return new NexusError({ code: 'attachment_too_large', message: `over ${maxBytes} bytes` });
}
