import { z } from 'zod';
import { conversationKindSchema } from './intent.ts';

/**
 * A message the assistant starts, not an answer to one: a reminder or a scheduled message that
 * falls due. It enters core like an intent does (`NexusCore.deliverOutbound`), passes the same
 * access checks (a person removed since gets nothing) and goes out through the adapter's normal
 * `deliver()` to the conversation where it was asked for. `id` is stable per firing, so a retry is
 * recognisable in logs and by the web client (it becomes the reply id).
 */
export const outboundIntentSchema = z.object({
  kind: z.literal('reminder'),
  id: z.string().min(1).max(512),
  conversation: z.object({
    channel: z.string().min(1).max(64),
    conversationId: z.string().min(1).max(512),
    kind: conversationKindSchema,
    /** The message that asked for it; in groups adapters reply to it. */
    intentId: z.string().min(1).max(512),
    senderPlatformId: z.string().min(1).max(512),
    userId: z.string().min(1).max(512),
  }),
  /** The person it is for (the one who asked). */
  userId: z.string().min(1).max(512),
  text: z.string().min(1).max(4000),
  dueAt: z.iso.datetime(),
});
export type OutboundIntent = z.infer<typeof outboundIntentSchema>;

/** How a proactive delivery ended: `refused` when access no longer allows it (do not retry). */
export type OutboundResult =
  | { status: 'delivered' }
  | { status: 'refused'; reason: string }
  | { status: 'failed'; message: string; retryable: boolean };
