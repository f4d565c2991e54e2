import { randomBytes } from 'node:crypto';
import type { proto, WAMessage } from '@whiskeysockets/baileys';
import { buildDirectMessage, whatsAppMessageId } from './whatsapp-messages.ts';

/** The media kinds a WhatsApp message can carry, as `Attachment['kind']` names them. */
export type WhatsAppIncomingMediaKind = 'image' | 'video' | 'audio' | 'voice' | 'document' | 'sticker';

/**
 * The proto content of a media message as a phone sends it: mime type, size, media key, hashes
 * and the CDN path. Nothing is served behind `directPath`, so this is for what a message *is*
 * (intake, the intent's attachment); a test that downloads the bytes uses `startFakeWhatsAppMedia`.
 * Images, videos and documents carry `caption`; audio, voice notes and stickers have none.
 */
export function whatsAppMediaContent(kind: WhatsAppIncomingMediaKind, caption?: string): proto.IMessage {
  const common = {
    fileLength: 2048,
    mediaKey: randomBytes(32),
    fileSha256: randomBytes(32),
    fileEncSha256: randomBytes(32),
    directPath: `/v/t62.7118-24/${whatsAppMessageId()}.enc`,
    mediaKeyTimestamp: Math.floor(Date.now() / 1000),
  };
  const withCaption = caption === undefined ? {} : { caption };
  switch (kind) {
    case 'image':
      return { imageMessage: { ...common, mimetype: 'image/jpeg', width: 640, height: 480, ...withCaption } };
    case 'video':
      return { videoMessage: { ...common, mimetype: 'video/mp4', seconds: 5, ...withCaption } };
    case 'audio':
      return { audioMessage: { ...common, mimetype: 'audio/mpeg', seconds: 30, ptt: false } };
    case 'voice':
      return { audioMessage: { ...common, mimetype: 'audio/ogg; codecs=opus', seconds: 3, ptt: true } };
    case 'document':
      return {
        documentMessage: { ...common, mimetype: 'application/pdf', fileName: 'notes.pdf', ...withCaption },
      };
    case 'sticker':
      return { stickerMessage: { ...common, mimetype: 'image/webp', width: 512, height: 512 } };
  }
}

/** A one-to-one message carrying one file of `kind` (with `caption` where WhatsApp has one). */
export function buildDirectMediaMessage(options: {
  from: string;
  kind: WhatsAppIncomingMediaKind;
  caption?: string;
}): WAMessage {
  const message = buildDirectMessage({ from: options.from, text: '' });
  message.message = whatsAppMediaContent(options.kind, options.caption);
  return message;
}
