import { createHash } from 'node:crypto';
import type { EnqueueJobResult, JobQueue, MemoryRecord } from '@nexus/protocol';
import { z } from 'zod';
import { rememberScheduledSummary, scheduledSummaryJob } from './summary-schedule-memo.ts';

export const SESSION_SUMMARY_JOB = 'memory.summarize';

export const sessionSummaryPayloadSchema = z.object({
  userId: z.string().min(1),
  /** The conversation key, which is also the memory session id. */
  sessionId: z.string().min(1),
  /** The turn this job was scheduled after (without `idleMs`, a later turn makes it stand down). */
  lastIntentId: z.string().min(1),
  /**
   * How long the conversation must have been quiet: the worker summarises once its newest turn is
   * this old, else schedules the job again for then. Absent in jobs of earlier versions.
   */
  idleMs: z.number().int().positive().optional(),
});
export type SessionSummaryPayload = z.infer<typeof sessionSummaryPayloadSchema>;

/**
 * Schedules the summary of a conversation for when it has been quiet for `idleMs`: one job per
 * conversation, debounced by the queue (not one job per turn). Durable: a restart does not lose
 * it. A turn within `idleMs` of the turn that this process last scheduled the job after leaves
 * the job as it is (see `summary-schedule-memo.ts`): the worker, finding newer turns than `idleMs`
 * ago, schedules the job again for `idleMs` after the newest. A turn that comes in while a
 * summary runs (past that window) enqueues a follow-up job.
 */
export async function scheduleSessionSummary(options: {
  queue: JobQueue;
  payload: Omit<SessionSummaryPayload, 'idleMs'>;
  idleMs: number;
  /** When the turn arrived (no later than its stored `createdAt`); without it, always enqueues. */
  turnAt?: number;
  abortSignal?: AbortSignal;
}): Promise<EnqueueJobResult> {
  const { queue, idleMs } = options;
  const key = options.payload.sessionId;
  const now = Date.now();
  const scheduled = scheduledSummaryJob(queue, key, idleMs, now);
  if (scheduled !== undefined) return { jobId: scheduled, deduplicated: true };
  const result = await enqueueSessionSummary({
    queue,
    payload: { ...options.payload, idleMs },
    delayMs: idleMs,
    ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
  });
  // A turn stamped later than now (a sender's clock) is remembered as arriving now.
  if (options.turnAt !== undefined) {
    rememberScheduledSummary(queue, key, {
      turnAt: Math.min(options.turnAt, now),
      idleMs,
      jobId: result.jobId,
    });
  }
  return result;
}

/** The debounced enqueue itself: the key's waiting job takes this payload and run time. */
export function enqueueSessionSummary(options: {
  queue: JobQueue;
  payload: SessionSummaryPayload;
  delayMs: number;
  abortSignal?: AbortSignal;
}): Promise<EnqueueJobResult> {
  const key = options.payload.sessionId;
  return options.queue.enqueue({
    name: SESSION_SUMMARY_JOB,
    payload: options.payload,
    debounceKey: key.length <= 200 ? key : `sha256:${createHash('sha256').update(key).digest('hex')}`,
    delayMs: options.delayMs,
    attempts: 3,
    backoff: { type: 'exponential', delayMs: 5_000 },
    ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
  });
}

/** The heading of a resumed conversation's summary in the memory block. */
export const SESSION_SUMMARY_HEADER = '## Earlier in this conversation';

/** Session summaries are session-scope memories marked by the summary worker. */
export const SESSION_SUMMARY_KIND = 'session-summary';

/**
 * Summaries are linked to their own session id, not the conversation's, so the context's session
 * scope (which searches every memory linked to the conversation) never offers one as a fact; only the
 * resumed-conversation path reads them, and only for the current generation (`currentIntentIds`).
 */
export function summarySessionId(conversationKey: string): string {
  return `${conversationKey}#summary`;
}

/** Session summaries are session-scope memories marked by the summary worker. */
export function isSummary(memory: MemoryRecord): boolean {
  return memory.metadata.kind === SESSION_SUMMARY_KIND;
}
