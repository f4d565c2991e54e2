import type { ReplyMediaEvent } from '@nexus/protocol';

export interface ReplyMediaFrames {
  /** What the connected client gets now. */
  live: string;
  /** What the replay log keeps for a resume. */
  replay: string;
  /** True when the live frame carries no bytes either (too big for one socket's buffer). */
  omittedLive: boolean;
}

export interface ReplyMediaFramesOptions {
  conversationId: string;
  seq: number;
  event: ReplyMediaEvent;
  /** Above this many base64 characters the replay log keeps a placeholder without the bytes. */
  replayMaxChars: number;
  /** Above this many base64 characters nothing is sent with bytes (it would overflow the peer). */
  liveMaxChars: number;
}

/**
 * A reply file as `event` frames. The bytes travel inside the frame (base64), as in every other
 * reply event, so they reach only the conversation's own client. A large file would pin memory
 * in the replay log for as long as the conversation is remembered, so above `replayMaxChars` the
 * log keeps the event with an empty `base64` — the client shows the name and size and says the
 * file is no longer available — while the client that is connected still gets the bytes.
 */
export function replyMediaFrames(options: ReplyMediaFramesOptions): ReplyMediaFrames {
  const { conversationId, seq, event } = options;
  const size = event.media.base64.length;
  const placeholder: ReplyMediaEvent = { ...event, media: { ...event.media, base64: '' } };
  const frameOf = (value: ReplyMediaEvent) =>
    JSON.stringify({ type: 'event', conversationId, seq, event: value });
  const stripped = frameOf(placeholder);
  if (size > options.liveMaxChars) return { live: stripped, replay: stripped, omittedLive: true };
  const full = frameOf(event);
  return { live: full, replay: size > options.replayMaxChars ? stripped : full, omittedLive: false };
}
