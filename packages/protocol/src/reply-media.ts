import { z } from 'zod';

/**
 * Largest file core hands to a channel: the biggest any platform takes (WhatsApp documents).
 * Each channel applies its own, smaller caps and says so instead of sending.
 */
export const MAX_REPLY_MEDIA_BYTES = 100 * 1024 * 1024;

/**
 * An image or file the model or a tool produced, carried inside the reply stream. The bytes
 * travel with the event (base64) so a channel needs nothing else to send it natively.
 */
export const replyMediaSchema = z.object({
  kind: z.enum(['image', 'file', 'audio']),
  mimeType: z.string().min(1).max(256),
  /** File name shown to the person; channels need one for documents. */
  name: z.string().min(1).max(512),
  sizeBytes: z.number().int().nonnegative().max(MAX_REPLY_MEDIA_BYTES),
  base64: z.string(),
});
export type ReplyMedia = z.infer<typeof replyMediaSchema>;
