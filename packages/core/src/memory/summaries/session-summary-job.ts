import { createHash } from 'node:crypto';
import type { EnqueueJobResult, JobQueue, MemoryRecord } from '@nexus/protocol';
import { z } from 'zod';

export const SESSION_SUMMARY_JOB = 'memory.summarize';

export const sessionSummaryPayloadSchema = z.object({
  userId: z.string().min(1),
  /** The conversation key, which is also the memory session id. */
  sessionId: z.string().min(1),
  /** The turn this job was scheduled after; a later turn makes the job stand down. */
  lastIntentId: z.string().min(1),
});
export type SessionSummaryPayload = z.infer<typeof sessionSummaryPayloadSchema>;

/**
 * Schedules the summary of a conversation for when it has been quiet for `idleMs`: one job per
 * conversation, debounced by the queue, whose run time and last turn move forward with every
 * turn (not one job per turn). Durable: a restart does not lose it. The worker still stands down
 * when the conversation went on after the job's turn (a turn that came in while a summary ran
 * leaves a follow-up job; jobs scheduled one per turn before the debounce still wait in old files).
 */
export function scheduleSessionSummary(options: {
  queue: JobQueue;
  payload: SessionSummaryPayload;
  idleMs: number;
  abortSignal?: AbortSignal;
}): Promise<EnqueueJobResult> {
  const key = options.payload.sessionId;
  return options.queue.enqueue({
    name: SESSION_SUMMARY_JOB,
    payload: options.payload,
    debounceKey: key.length <= 200 ? key : `sha256:${createHash('sha256').update(key).digest('hex')}`,
    delayMs: options.idleMs,
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
