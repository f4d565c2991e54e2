import { z } from 'zod';
import { errorCodeSchema } from './error-codes.ts';
import { replyMediaSchema } from './reply-media.ts';

/**
 * The stream a turn produces. `reply.end` repeats the full text so a channel that cannot stream
 * (or missed deltas) renders once from it.
 */
export const replyEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('reply.start'), replyId: z.string() }),
  z.object({ type: z.literal('reply.delta'), replyId: z.string(), text: z.string() }),
  /**
   * `stopped`: the person pressed Stop; `text` is what they had been shown, which is also what
   * history keeps (a client that drew more replaces it with this).
   */
  z.object({
    type: z.literal('reply.end'),
    replyId: z.string(),
    text: z.string(),
    stopped: z.boolean().optional(),
  }),
  /** An image or file for the reply, sent after (or between) its text; `caption` is optional. */
  z.object({
    type: z.literal('reply.media'),
    replyId: z.string(),
    media: replyMediaSchema,
    caption: z.string().optional(),
  }),
  z.object({ type: z.literal('typing') }),
  z.object({ type: z.literal('status'), text: z.string() }),
  z.object({
    type: z.literal('error'),
    code: errorCodeSchema,
    message: z.string(),
    retryable: z.boolean(),
  }),
]);
export type ReplyEvent = z.infer<typeof replyEventSchema>;
export type ReplyEventType = ReplyEvent['type'];
export type ReplyMediaEvent = Extract<ReplyEvent, { type: 'reply.media' }>;
