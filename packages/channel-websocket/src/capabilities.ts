import type { ChannelCapabilities } from '@nexus/protocol';

/**
 * The web client gets every reply event (deltas, typing) and renders Markdown itself; there are
 * no groups and no platform limit, so replies are never split. Reply files travel inside the
 * event stream; files in arrive only when the gateway gives the channel an upload store (an
 * upload is an image, audio or document by its bytes; audio recorded in the page is a voice note).
 */
export function webSocketCapabilities(options: { uploads: boolean }): ChannelCapabilities {
  return {
    edits: false,
    typing: true,
    groups: false,
    mediaIn: options.uploads ? ['image', 'voice', 'audio', 'document'] : [],
    mediaOut: ['image', 'file', 'audio'],
    linking: 'none',
  };
}
