import { z } from 'zod';

/** Longest message text accepted from any channel; longer input is rejected, not truncated. */
export const MAX_INTENT_TEXT_CHARS = 32_000;

export const attachmentSchema = z.object({
  kind: z.enum(['image', 'audio', 'voice', 'video', 'document', 'sticker', 'other']),
  /** Platform file handle, used to download on demand. */
  platformFileId: z.string().max(1024).optional(),
  name: z.string().max(512).optional(),
  mimeType: z.string().max(256).optional(),
  sizeBytes: z.number().int().nonnegative().optional(),
  url: z.string().max(4096).optional(),
});
export type Attachment = z.infer<typeof attachmentSchema>;

/**
 * Marks an intent as a change to an earlier message of the same conversation rather than a new
 * one. An edit carries the message's new full text (and attachments); a delete carries empty
 * text. `regenerate` asks for another answer to the message (its text is the message's as the
 * channel has it, used only when core never stored an answer, e.g. after a failure: "Try again");
 * `choose` brings back an earlier answer (`replyId`) into history, with no model call. The
 * intent's own `id` stays unique per change (channels derive it from the target id plus the
 * platform's edit time or version, `<target>:delete` for a delete), so a redelivered edit is a
 * duplicate while a second, different edit is not.
 */
export const revisionSchema = z.object({
  kind: z.enum(['edit', 'delete', 'regenerate', 'choose']),
  /** The `id` of the intent being edited or deleted, exactly as this channel produced it. */
  targetIntentId: z.string().min(1).max(512),
  /** For `choose`: the reply (version) of the target to keep in history. */
  replyId: z.string().min(1).max(128).optional(),
});
export type Revision = z.infer<typeof revisionSchema>;

export const conversationKindSchema = z.enum(['direct', 'group', 'thread']);
export type ConversationKind = z.infer<typeof conversationKindSchema>;

/**
 * One message from a person, normalised by a channel adapter. `id` comes from the platform's
 * message id so a redelivered message is recognised and answered once.
 */
export const intentSchema = z.object({
  id: z.string().min(1).max(512),
  channel: z.string().min(1).max(64),
  conversation: z.object({
    id: z.string().min(1).max(512),
    kind: conversationKindSchema,
    title: z.string().max(512).optional(),
  }),
  sender: z.object({
    platformId: z.string().min(1).max(512),
    displayName: z.string().max(512).optional(),
  }),
  /** The person after identity resolution; adapters set `<channel>:<platformId>` until linked. */
  userId: z.string().min(1).max(512),
  text: z.string().max(MAX_INTENT_TEXT_CHARS),
  attachments: z.array(attachmentSchema).max(32).default([]),
  replyTo: z.string().max(512).optional(),
  /** Present when this is an edit or deletion of an earlier message (see `revisionSchema`). */
  revises: revisionSchema.optional(),
  mentionsAssistant: z.boolean(),
  receivedAt: z.iso.datetime(),
  /** The platform's original payload, for debugging; never logged. */
  raw: z.unknown().optional(),
});
export type Intent = z.infer<typeof intentSchema>;
export type IntentInput = z.input<typeof intentSchema>;

/** Where a reply goes: enough for an adapter to deliver without looking anything up. */
export interface ConversationRef {
  channel: string;
  conversationId: string;
  kind: ConversationKind;
  /**
   * The platform message being answered (reply-to in groups). For the answer to an edit
   * (`revises`), this is the edited message's id (`revises.targetIntentId`), so the reply threads
   * under the message that was edited; its ReplyEvents carry the edit intent's own reply id, which
   * differs from the first reply's, so an idempotency key made from it (a Discord nonce) is new.
   */
  intentId: string;
  /**
   * Set only on the answer to an edit: the edit intent's own id (unique per change). A channel
   * whose idempotency key is made from the message being answered (Discord's nonces, which cover
   * status lines sent before `reply.start` too) takes this instead, so the re-answer is not
   * mistaken for the first reply.
   */
  revisionIntentId?: string;
  userId: string;
  senderPlatformId: string;
}

export function conversationRefOf(intent: Intent): ConversationRef {
  return {
    channel: intent.channel,
    conversationId: intent.conversation.id,
    kind: intent.conversation.kind,
    intentId: intent.id,
    userId: intent.userId,
    senderPlatformId: intent.sender.platformId,
  };
}
