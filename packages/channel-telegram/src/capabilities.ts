import type { ChannelCapabilities } from '@nexus/protocol';

/**
 * Drafts stream by editing one message; replies render as Telegram HTML, split at 4096. People's
 * edits arrive (`edited_message`); deletions never do: the Bot API sends bots no update for them.
 */
export const TELEGRAM_CAPABILITIES: ChannelCapabilities = {
  edits: true,
  drafts: false,
  typing: true,
  groups: true,
  mediaIn: ['image', 'document', 'voice', 'audio', 'video', 'sticker'],
  mediaOut: [],
  linking: 'none',
  maxMessageChars: 4096,
  markdown: 'html',
  revisions: { edits: true, deletes: false },
};
