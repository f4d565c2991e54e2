import type { ChannelCapabilities } from '@nexus/protocol';

/**
 * Linked from a phone by QR code; no edits (each chunk is a new message, paced); `composing`
 * while a reply runs. Replies are cut at `chunkLength` characters (the reply sender reads
 * `maxMessageChars` from here); reply files go as image, audio or document messages.
 */
export function whatsAppCapabilities(chunkLength: number) {
  return {
    edits: false,
    typing: true,
    groups: true,
    mediaIn: ['image', 'video', 'audio', 'voice', 'document', 'sticker'],
    mediaOut: ['image', 'file', 'audio'],
    linking: 'qr',
    maxMessageChars: chunkLength,
    // MESSAGE_EDIT and REVOKE ("delete for everyone") protocol messages.
    revisions: { edits: true, deletes: true },
  } satisfies ChannelCapabilities;
}
