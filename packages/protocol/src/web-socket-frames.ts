import { z } from 'zod';
import { errorCodeSchema } from './error-codes.ts';
import { replyEventSchema } from './reply-event.ts';

import { WEB_SOCKET_PROTOCOL_VERSION } from './web-socket-constants.ts';

const idSchema = z.string().min(1).max(128);
const conversationIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, 'letters, digits, _ or - only');

/** Most files one web message may carry; each is uploaded first (`POST /api/web/uploads`). */
export const MAX_WEB_ATTACHMENTS = 10;

/** A file the client uploaded before sending the message; only the uploading client may use it. */
export const webAttachmentSchema = z.object({
  /** The opaque id `POST /api/web/uploads` answered. */
  uploadId: z.string().regex(/^[A-Za-z0-9_-]{16,128}$/, 'an uploadId as the upload route returned it'),
  name: z.string().max(512).optional(),
  mimeType: z.string().max(256).optional(),
  /** Recorded in the page as a voice note (rather than an audio file picked from disk). */
  voice: z.boolean().optional(),
});
export type WebAttachment = z.infer<typeof webAttachmentSchema>;

/** A conversation as the gateway lists it for its person (`GET /api/web/conversations`). */
export const webConversationSummarySchema = z.object({
  conversationId: conversationIdSchema,
  title: z.string().max(200),
  /** The person gave the title; it no longer follows the first message. */
  renamed: z.boolean(),
  createdAt: z.number(),
  updatedAt: z.number(),
});
export type WebConversationSummary = z.infer<typeof webConversationSummarySchema>;

export const resumeRequestSchema = z.object({
  conversationId: conversationIdSchema,
  lastSeq: z.number().int().nonnegative(),
});

/** Frames a client sends. Unknown `type` values get an `unknown_frame` error, not a disconnect. */
export const clientFrameSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('hello'),
    v: z.literal(WEB_SOCKET_PROTOCOL_VERSION).optional(),
    /** Stable id of this browser or client; becomes the sender's platform id. */
    clientId: idSchema,
    displayName: z.string().max(128).optional(),
    resume: resumeRequestSchema.optional(),
  }),
  z.object({
    type: z.literal('message'),
    /** Idempotency key: the same id twice gets one reply. */
    clientMessageId: idSchema,
    conversationId: conversationIdSchema,
    /** May be empty when the message carries attachments (a photo or a voice note alone). */
    text: z.string(),
    attachments: z.array(webAttachmentSchema).max(MAX_WEB_ATTACHMENTS).optional(),
  }),
  /** Replaces the text of an earlier message of this client; answered with `accepted`. */
  z.object({
    type: z.literal('edit'),
    /** Idempotency key of this change (a new one per edit). */
    clientMessageId: idSchema,
    conversationId: conversationIdSchema,
    /** The `clientMessageId` of the message being edited. */
    targetClientMessageId: idSchema,
    text: z.string().min(1),
  }),
  /** Withdraws an earlier message of this client; answered with `accepted`. */
  z.object({
    type: z.literal('delete'),
    clientMessageId: idSchema,
    conversationId: conversationIdSchema,
    targetClientMessageId: idSchema,
  }),
  /**
   * Stop the reply being written (the Stop button): the gateway aborts the model call and keeps
   * the first `shownChars` characters of the reply, the text the person saw. The reply is named
   * by `replyId` once it started, or before its first words by the `clientMessageId` of the frame
   * it answers (`targetClientMessageId`). Answered with `cancelled`; the reply's `reply.end`
   * (marked `stopped`) follows when it was still running.
   */
  z.object({
    type: z.literal('cancel'),
    conversationId: conversationIdSchema,
    replyId: idSchema.optional(),
    targetClientMessageId: idSchema.optional(),
    shownChars: z.number().int().nonnegative().optional(),
  }),
  /**
   * Another answer to one of this client's messages (Regenerate on the newest reply, Try again on
   * an error); `text` is the message as the client shows it, used when the gateway kept no answer
   * to it. Answered with `accepted`; the new reply streams under a new `replyId`.
   */
  z.object({
    type: z.literal('regenerate'),
    clientMessageId: idSchema,
    conversationId: conversationIdSchema,
    targetClientMessageId: idSchema,
    text: z.string(),
  }),
  /**
   * Keeps an earlier version (`replyId`) of the answer to one of this client's messages in the
   * history the model sees next, in place of the newest. Answered with `accepted`; no reply.
   */
  z.object({
    type: z.literal('choose'),
    clientMessageId: idSchema,
    conversationId: conversationIdSchema,
    targetClientMessageId: idSchema,
    replyId: idSchema,
  }),
  z.object({ type: z.literal('resume'), ...resumeRequestSchema.shape }),
  z.object({ type: z.literal('ping'), t: z.number().optional() }),
]);
export type ClientFrame = z.infer<typeof clientFrameSchema>;

export const serverFrameSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('welcome'),
    v: z.literal(WEB_SOCKET_PROTOCOL_VERSION),
    connectionId: z.string(),
    heartbeatMs: z.number(),
    limits: z.object({
      maxFrameBytes: z.number(),
      maxTextChars: z.number(),
      messagesPerMinute: z.number(),
      /** Largest upload (`POST /api/web/uploads`) and attachments per message; absent: no uploads. */
      maxUploadBytes: z.number().optional(),
      maxAttachments: z.number().optional(),
      /** Voice notes are transcribed (a transcriber is configured); absent or false: do not offer recording. */
      voiceNotes: z.boolean().optional(),
    }),
    /** A message the operator should see, e.g. how to configure a model provider. */
    notice: z.string().optional(),
  }),
  z.object({
    type: z.literal('accepted'),
    clientMessageId: idSchema,
    conversationId: conversationIdSchema,
    duplicate: z.boolean(),
  }),
  z.object({
    type: z.literal('event'),
    conversationId: conversationIdSchema,
    /** Per-conversation, strictly increasing; clients resume from the last one they saw. */
    seq: z.number().int().positive(),
    event: replyEventSchema,
    /**
     * On `reply.start` only: the reply answers none of the person's messages (a reminder, a
     * message the assistant sends on its own). A client shows it on its own, never as another
     * version of the answer before it.
     */
    unprompted: z.literal(true).optional(),
  }),
  z.object({
    type: z.literal('resumed'),
    conversationId: conversationIdSchema,
    replayed: z.number().int().nonnegative(),
    /** False when the replay log no longer held everything after `lastSeq`. */
    complete: z.boolean(),
    lastSeq: z.number().int().nonnegative(),
  }),
  z.object({
    type: z.literal('error'),
    code: errorCodeSchema,
    message: z.string(),
    retryable: z.boolean(),
    clientMessageId: z.string().optional(),
  }),
  /** The answer to `cancel`, naming the reply as the cancel did: `stopping` false when it had already ended (or is unknown). */
  z.object({
    type: z.literal('cancelled'),
    conversationId: conversationIdSchema,
    replyId: idSchema.optional(),
    targetClientMessageId: idSchema.optional(),
    stopping: z.boolean(),
  }),
  z.object({ type: z.literal('pong'), t: z.number().optional() }),
  z.object({ type: z.literal('shutdown'), retryAfterMs: z.number() }),
  /**
   * One of the person's conversations changed on the gateway (created, renamed, a turn stored, or
   * deleted), sent to every socket of that person (their other tabs and devices), never to another
   * person's. A client updates its list and, for `turn`, reads the conversation's messages again.
   */
  z.object({
    type: z.literal('conversation'),
    change: z.enum(['created', 'renamed', 'turn', 'deleted']),
    conversation: webConversationSummarySchema,
  }),
  /**
   * A message the person sent from another tab or device, taken durably (its sender got
   * `accepted`): a client showing that conversation shows it at once, so the reply that streams
   * next is drawn under it. Files are described, not sent.
   */
  z.object({
    type: z.literal('sent'),
    conversationId: conversationIdSchema,
    clientMessageId: idSchema,
    text: z.string(),
    attachments: z
      .array(
        z.object({
          kind: z.enum(['image', 'audio', 'voice', 'document']),
          name: z.string().optional(),
          sizeBytes: z.number().int().nonnegative().optional(),
        }),
      )
      .optional(),
  }),
]);
export type ServerFrame = z.infer<typeof serverFrameSchema>;
