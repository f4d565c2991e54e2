import type { ChannelAdapter, Intent, Logger } from '@nexus/protocol';
import { DEFAULT_MEDIA_SETTINGS, type MediaSettings } from '../media/media-settings.ts';
import { prepareTurnMedia } from '../media/prepare-turn-media.ts';
import type { TurnMedia } from '../media/turn-media.ts';

/**
 * Media: the attachments read, transcribed and checked. The intent comes back with what voice
 * notes said in its text; a message without attachments passes through untouched.
 */
export async function readAttachments(options: {
  intent: Intent;
  adapter: ChannelAdapter;
  settings: MediaSettings | undefined;
  abortSignal: AbortSignal;
  logger: Logger;
}): Promise<{ intent: Intent; media?: TurnMedia }> {
  const { intent } = options;
  if (intent.attachments.length === 0) return { intent };
  const media = await prepareTurnMedia({
    intent,
    adapter: options.adapter,
    settings: options.settings ?? DEFAULT_MEDIA_SETTINGS,
    logger: options.logger,
    abortSignal: options.abortSignal,
  });
  return { intent: { ...intent, text: media.text }, media };
}
