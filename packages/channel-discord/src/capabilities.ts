import type { ChannelCapabilities } from '@nexus/protocol';
import { DISCORD_MAX_MESSAGE_LENGTH } from './deliver-reply.ts';

/** Replies stream by editing one message; Discord Markdown, split at 2000 characters. */
export const DISCORD_CAPABILITIES: ChannelCapabilities = {
  edits: true,
  drafts: false,
  typing: true,
  groups: true,
  mediaIn: ['image', 'voice', 'audio', 'video', 'document', 'sticker'],
  mediaOut: [],
  linking: 'none',
  maxMessageChars: DISCORD_MAX_MESSAGE_LENGTH,
  markdown: 'markdown',
  // MESSAGE_UPDATE and MESSAGE_DELETE; a delete only for messages this process handed to core.
  revisions: { edits: true, deletes: true },
};
