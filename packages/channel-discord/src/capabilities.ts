import type { ChannelCapabilities } from '@nexus/protocol';

/**
 * Replies stream by editing one message and are split at 2000 characters (the splitter reads
 * `maxMessageChars` from here); reply files are uploaded as message attachments.
 */
export const DISCORD_CAPABILITIES = {
  edits: true,
  typing: true,
  groups: true,
  mediaIn: ['image', 'voice', 'audio', 'video', 'document', 'sticker'],
  mediaOut: ['image', 'file', 'audio'],
  linking: 'none',
  maxMessageChars: 2000,
  // MESSAGE_UPDATE and MESSAGE_DELETE; a delete only for messages this process handed to core.
  revisions: { edits: true, deletes: true },
} satisfies ChannelCapabilities;
