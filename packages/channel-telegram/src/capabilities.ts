import type { ChannelCapabilities } from '@nexus/protocol';

/**
 * Replies stream by editing one message and are split at 4096 characters (the splitter reads
 * `maxMessageChars` from here). People's edits arrive (`edited_message`); deletions never do: the
 * Bot API sends bots no update for them. Reply files go as photos or documents (`send-media.ts`).
 */
export const TELEGRAM_CAPABILITIES = {
  edits: true,
  typing: true,
  groups: true,
  mediaIn: ['image', 'document', 'voice', 'audio', 'video', 'sticker'],
  mediaOut: ['image', 'file', 'audio'],
  linking: 'none',
  maxMessageChars: 4096,
  revisions: { edits: true, deletes: false },
} satisfies ChannelCapabilities;
