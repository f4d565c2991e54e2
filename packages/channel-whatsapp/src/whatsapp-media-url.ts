import type { proto } from '@whiskeysockets/baileys';

/** Baileys' default media host (`DEF_MEDIA_HOST`). */
const DEFAULT_MEDIA_HOST = 'mmg.whatsapp.net';

/**
 * The URL Baileys' `downloadContentFromMessage` would fetch for this media: `directPath` on the
 * host named by the message's `url` (or WhatsApp's default), else the `url` itself. Both come
 * from the received message, so the result is untrusted until the outbound policy checks it.
 */
export function whatsAppMediaUrl(
  media: Pick<proto.Message.IImageMessage, 'url' | 'directPath'>,
): string | undefined {
  if (media.directPath) {
    let host = DEFAULT_MEDIA_HOST;
    try {
      if (media.url) host = new URL(media.url).host;
    } catch {
      // An unparsable url: Baileys falls back to the default host too.
    }
    return `https://${host}${media.directPath}`;
  }
  return media.url ?? undefined;
}
