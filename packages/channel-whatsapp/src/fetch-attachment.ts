import { type FetchAttachmentOptions, type FetchedAttachment, NexusError } from '@nexus/protocol';
import { downloadMediaMessage, type WAMessage } from '@whiskeysockets/baileys';
import { parseWhatsAppIntentId } from './to-intent.ts';

/** Finds a received message by chat and id (the channel's SQLite message store). */
export type FindStoredMessage = (options: { remoteJid?: string | null; id: string }) => WAMessage | undefined;

/**
 * The port's `fetchAttachment` for WhatsApp: the message the attachment came with is read back
 * from the store (its `platformFileId` is the intent id, `<chat>/<message id>`), and Baileys'
 * `downloadMediaMessage` fetches and decrypts the media, streamed so that reading stops at
 * `maxBytes`. Voice notes (PTT) are OGG/Opus, as on Telegram.
 */
export async function fetchWhatsAppAttachment(
  find: FindStoredMessage,
  options: FetchAttachmentOptions,
): Promise<FetchedAttachment> {
  const address = parseWhatsAppIntentId(options.attachment.platformFileId ?? '');
  const message = address ? find({ remoteJid: address.remoteJid, id: address.messageId }) : undefined;
  if (!message) {
    throw new NexusError({
      code: 'attachment_unavailable',
      message: 'The WhatsApp message is no longer stored.',
    });
  }
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    const stream = await downloadMediaMessage(message, 'stream', {
      ...(options.abortSignal ? { options: { signal: options.abortSignal } } : {}),
    });
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > options.maxBytes) {
        stream.destroy();
        throw new NexusError({ code: 'attachment_too_large', message: `over ${options.maxBytes} bytes` });
      }
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof NexusError) throw error;
    if (options.abortSignal?.aborted) throw options.abortSignal.reason;
    throw new NexusError({
      code: 'attachment_unavailable',
      message: 'WhatsApp did not hand over the media.',
      retryable: true,
      cause: error,
    });
  }
  return {
    bytes: Buffer.concat(chunks),
    ...(options.attachment.mimeType ? { mimeType: options.attachment.mimeType } : {}),
    ...(options.attachment.name ? { name: options.attachment.name } : {}),
  };
}
