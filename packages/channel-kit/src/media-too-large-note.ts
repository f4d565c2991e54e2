import type { ReplyMedia } from '@nexus/protocol';

/**
 * The honest line a channel sends instead of a file over its platform's limit: what the file
 * was, how big, and the limit, so the person knows something was made and why it did not arrive.
 */
export function mediaTooLargeNote(media: ReplyMedia, limitBytes: number, platform: string): string {
  return `⚠️ I made ${media.name} (${formatBytes(media.sizeBytes)}), but ${platform} only takes files up to ${formatBytes(limitBytes)}, so I could not send it here.`;
}

/** A file the platform refused for another reason (corrupt image, upload failed). */
export function mediaNotSentNote(media: ReplyMedia, platform: string): string {
  return `⚠️ I made ${media.name}, but ${platform} did not accept it, so it is not attached.`;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
