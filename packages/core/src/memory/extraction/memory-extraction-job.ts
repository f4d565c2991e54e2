import { createHash } from 'node:crypto';
import type { EnqueueJobResult, JobQueue } from '@nexus/protocol';
import { z } from 'zod';

export const MEMORY_EXTRACT_JOB = 'memory.extract';

/** One answered turn, as the extraction worker needs it (everything travels in the job). */
export const memoryExtractionPayloadSchema = z.object({
  userId: z.string().min(1),
  /** The conversation key (`channel:conversationId`), which is the memory session id. */
  sessionId: z.string().min(1),
  channel: z.string().min(1),
  conversationId: z.string().min(1),
  conversationKind: z.enum(['direct', 'group', 'thread']),
  /**
   * A group turn whose speaker the owner named as the group's only human member: extracted into
   * the speaker's memory. Absent (every other group turn): extracted into the group's memory.
   */
  personalInGroup: z.literal(true).optional(),
  intentId: z.string().min(1),
  userText: z.string(),
  replyText: z.string(),
  /** When the person wrote, ISO 8601: relative dates resolve against its day. */
  occurredAt: z.string(),
  /**
   * Set when the person edited or deleted the message (`intentId` is then the edit's or delete's
   * own id). Facts learned from a message record its id (`metadata.intentId`); an edit is
   * extracted with its previous text so facts from the old words are updated or deleted, and a
   * delete removes the facts learned from that message alone.
   */
  revision: z
    .object({
      kind: z.enum(['edit', 'delete']),
      /** The message edited or deleted: the id its facts were recorded under. */
      messageIntentId: z.string().min(1),
      /** What the message said before the edit. */
      previousUserText: z.string().optional(),
    })
    .optional(),
});
export type MemoryExtractionPayload = z.infer<typeof memoryExtractionPayloadSchema>;

/** The job id of a turn's extraction, so a redelivered turn is extracted once. */
export function extractionJobId(payload: Pick<MemoryExtractionPayload, 'channel' | 'intentId'>): string {
  const id = `${payload.channel}:${payload.intentId}`;
  return id.length <= 200 ? id : `sha256:${createHash('sha256').update(id).digest('hex')}`;
}

export function enqueueMemoryExtraction(options: {
  queue: JobQueue;
  payload: MemoryExtractionPayload;
  attempts?: number;
  abortSignal?: AbortSignal;
}): Promise<EnqueueJobResult> {
  return options.queue.enqueue({
    name: MEMORY_EXTRACT_JOB,
    payload: options.payload,
    jobId: extractionJobId(options.payload),
    attempts: options.attempts ?? 4,
    backoff: { type: 'exponential', delayMs: 2_000 },
    ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
  });
}
