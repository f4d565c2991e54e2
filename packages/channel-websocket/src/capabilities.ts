import type { ChannelCapabilities } from '@nexus/protocol';

/**
 * The web client gets every reply event (deltas as a draft, typing) and renders Markdown itself; there
 * are no groups, no attachments and no platform limit, so replies are never split.
 */
export const WEB_SOCKET_CAPABILITIES: ChannelCapabilities = {
  edits: false,
  drafts: true,
  typing: true,
  groups: false,
  mediaIn: [],
  mediaOut: [],
  linking: 'none',
  markdown: 'markdown',
};
