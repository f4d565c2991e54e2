import type { ReplyMedia } from '@nexus/protocol';
import type { AnyMessageContent } from '@whiskeysockets/baileys';

/** WhatsApp's caps: images, audio and video up to 16 MB, documents up to 100 MB. */
export const WHATSAPP_MAX_MEDIA_BYTES = 16 * 1024 * 1024;
export const WHATSAPP_MAX_DOCUMENT_BYTES = 100 * 1024 * 1024;
/** Images WhatsApp shows inline; anything else goes as a document so it arrives unchanged. */
const INLINE_IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/webp']);

export type WhatsAppMediaContent =
  | { status: 'ready'; content: AnyMessageContent }
  | { status: 'too_large'; limitBytes: number };

/**
 * The Baileys content of one reply file: an image message for PNG/JPEG/WebP up to 16 MB (a larger
 * image goes as a document), an audio message for audio up to 16 MB, otherwise a document up to
 * 100 MB. Baileys encrypts and uploads it on `sendMessage`.
 */
export function whatsAppMediaContent(media: ReplyMedia, caption?: string): WhatsAppMediaContent {
  const bytes = Buffer.from(media.base64, 'base64');
  const withCaption = caption ? { caption } : {};
  if (media.sizeBytes <= WHATSAPP_MAX_MEDIA_BYTES) {
    if (INLINE_IMAGE_TYPES.has(media.mimeType))
      return { status: 'ready', content: { image: bytes, mimetype: media.mimeType, ...withCaption } };
    if (media.kind === 'audio')
      return { status: 'ready', content: { audio: bytes, mimetype: media.mimeType } };
  }
  if (media.sizeBytes > WHATSAPP_MAX_DOCUMENT_BYTES)
    return { status: 'too_large', limitBytes: WHATSAPP_MAX_DOCUMENT_BYTES };
  return {
    status: 'ready',
    content: { document: bytes, mimetype: media.mimeType, fileName: media.name, ...withCaption },
  };
}
