import type { ReplyEvent, ReplyMediaEvent } from '@nexus/protocol';

export type ReplyErrorEvent = Extract<ReplyEvent, { type: 'error' }>;

export interface CollectedReply {
  text: string;
  errors: ReplyErrorEvent[];
  /** Images and files of the reply, in the order they came. */
  media: ReplyMediaEvent[];
}

/**
 * Reads a whole reply stream for a channel that cannot edit messages. `reply.end` carries the
 * authoritative text; deltas are only used for a reply whose end never came.
 */
export async function collectReply(
  events: AsyncIterable<ReplyEvent>,
  options: { onEvent?: (event: ReplyEvent) => void } = {},
): Promise<CollectedReply> {
  const texts = new Map<string, { text: string; ended: boolean }>();
  const errors: ReplyErrorEvent[] = [];
  const media: ReplyMediaEvent[] = [];
  for await (const event of events) {
    options.onEvent?.(event);
    switch (event.type) {
      case 'reply.start':
        if (!texts.has(event.replyId)) texts.set(event.replyId, { text: '', ended: false });
        break;
      case 'reply.delta': {
        const entry = texts.get(event.replyId) ?? { text: '', ended: false };
        if (!entry.ended) entry.text += event.text;
        texts.set(event.replyId, entry);
        break;
      }
      case 'reply.end':
        texts.set(event.replyId, { text: event.text, ended: true });
        break;
      case 'error':
        errors.push(event);
        break;
      case 'reply.media':
        media.push(event);
        break;
      default:
        break;
    }
  }
  const parts = [...texts.values()].map((entry) => entry.text).filter((text) => text.length > 0);
  return { text: parts.join('\n\n'), errors, media };
}
