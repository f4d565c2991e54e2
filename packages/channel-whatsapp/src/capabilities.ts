import type { ChannelCapabilities } from '@nexus/protocol';

/**
 * Linked from a phone by QR code; no edits (each chunk is a new message, paced); `composing`
 * while a reply runs; WhatsApp's own text styling. `maxMessageChars` follows `chunkLength`.
 */
export function whatsAppCapabilities(chunkLength: number): ChannelCapabilities {
  return {
    edits: false,
    drafts: false,
    typing: true,
    groups: true,
    mediaIn: ['image', 'video', 'audio', 'voice', 'document', 'sticker'],
    mediaOut: [],
    linking: 'qr',
    maxMessageChars: chunkLength,
    markdown: 'whatsapp',
    // MESSAGE_EDIT and REVOKE ("delete for everyone") protocol messages.
    revisions: { edits: true, deletes: true },
  };
}
