import { readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { encryptedStream, proto, type WAMessage } from '@whiskeysockets/baileys';
import { whatsAppMessageId } from './whatsapp-messages.ts';

export type WhatsAppMediaKind = 'image' | 'audio' | 'document';

/**
 * A stand-in for WhatsApp's media CDN: bytes are encrypted with Baileys' own `encryptedStream`
 * (AES-CBC + HMAC, the real format) and served over local HTTP, so the channel's
 * `downloadMediaMessage` fetches and decrypts a real proto media message.
 */
export async function startFakeWhatsAppMedia() {
  const files = new Map<string, Buffer>();
  const requests: string[] = [];
  const server = createServer((request, response) => {
    requests.push(request.url ?? '');
    const file = files.get(request.url ?? '');
    if (!file) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-length': file.length }).end(file);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    /** The origin to configure as the channel's media origin (WhatsApp's CDN stands here). */
    origin: `http://127.0.0.1:${port}`,
    /** Paths requested so far, in order. */
    requests,
    /** A direct media message from `from`; `ptt` makes an audio message a voice note. */
    async buildMediaMessage(options: {
      from: string;
      kind: WhatsAppMediaKind;
      bytes: Uint8Array;
      mimetype: string;
      ptt?: boolean;
      fileName?: string;
      caption?: string;
      /**
       * What the message names instead of this server's URL: a modified client can put any URL
       * (or a `directPath` whose host comes from `url`) into a media message.
       */
      url?: string;
      directPath?: string;
    }): Promise<WAMessage> {
      const encrypted = await encryptedStream(Buffer.from(options.bytes), options.kind);
      const path = `/m/${whatsAppMessageId()}.enc`;
      files.set(path, await readFile(encrypted.encFilePath));
      await rm(encrypted.encFilePath, { force: true });
      const media = {
        url: options.url ?? `http://127.0.0.1:${port}${path}`,
        ...(options.directPath ? { directPath: options.directPath } : {}),
        mimetype: options.mimetype,
        mediaKey: encrypted.mediaKey,
        fileSha256: encrypted.fileSha256,
        fileEncSha256: encrypted.fileEncSha256,
        fileLength: encrypted.fileLength,
        ...(options.caption ? { caption: options.caption } : {}),
      };
      const message: proto.IMessage =
        options.kind === 'image'
          ? { imageMessage: media }
          : options.kind === 'audio'
            ? { audioMessage: { ...media, ptt: options.ptt ?? false, seconds: 2 } }
            : { documentMessage: { ...media, fileName: options.fileName ?? 'file' } };
      return proto.WebMessageInfo.create({
        key: { id: whatsAppMessageId(), remoteJid: options.from, fromMe: false },
        messageTimestamp: Math.floor(Date.now() / 1000),
        message,
      }) as WAMessage;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
