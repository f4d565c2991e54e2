import type { ChannelCapabilities } from '@nexus/protocol';

/**
 * The web client gets every reply event (deltas as a draft, typing) and renders Markdown itself; there
 * are no groups and no platform limit, so replies are never split. Reply files travel inside the
 * event stream; files in arrive only when the gateway gives the channel an upload store.
 */
export function webSocketCapabilities(options: { uploads: boolean }): ChannelCapabilities {
  return {
    edits: false,
    drafts: true,
    typing: true,
    groups: false,
    mediaIn: options.uploads ? ['image', 'voice', 'audio', 'document'] : [],
    mediaOut: ['image', 'audio', 'document'],
    linking: 'none',
    markdown: 'markdown',
  };
}
