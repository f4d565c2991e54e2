import { createDecipheriv, createHmac, timingSafeEqual } from 'node:crypto';
import { NexusError } from '@nexus/protocol';
import { getMediaKeys, type MediaType } from '@whiskeysockets/baileys';

const MAC_LENGTH = 10;

/**
 * WhatsApp's media encryption (what Baileys' `encryptedStream` writes and its
 * `downloadEncryptedContent` reads): AES-256-CBC under keys expanded from `mediaKey`, followed by
 * the first 10 bytes of HMAC-SHA256(macKey, iv ‖ ciphertext). The MAC is checked here (Baileys
 * skips it), so tampered bytes are refused rather than decrypted into garbage.
 */
export async function decryptWhatsAppMedia(
  encrypted: Uint8Array,
  mediaKey: Uint8Array,
  mediaType: MediaType,
): Promise<Buffer> {
  const keys = await getMediaKeys(mediaKey, mediaType);
  if (!keys.macKey)
    throw new NexusError({ code: 'attachment_corrupt', message: 'The WhatsApp media key is unusable.' });
  const body = Buffer.from(encrypted.buffer, encrypted.byteOffset, encrypted.byteLength);
  const ciphertext = body.subarray(0, Math.max(0, body.length - MAC_LENGTH));
  const mac = body.subarray(ciphertext.length);
  const expected = createHmac('sha256', keys.macKey)
    .update(keys.iv)
    .update(ciphertext)
    .digest()
    .subarray(0, MAC_LENGTH);
  if (mac.length !== MAC_LENGTH || !timingSafeEqual(mac, expected))
    throw new NexusError({
      code: 'attachment_corrupt',
      message: 'The WhatsApp media failed its integrity check.',
    });
  try {
    const decipher = createDecipheriv('aes-256-cbc', keys.cipherKey, keys.iv);
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]);
  } catch (error) {
    throw new NexusError({
      code: 'attachment_corrupt',
      message: 'The WhatsApp media could not be decrypted.',
      cause: error,
    });
  }
}
