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
 * Schedules the summary of a conversation for when it has been quiet for `idleMs`. Every turn
 * schedules one; when it runs, a job whose turn is no longer the last stands down, so only the
 * last turn before a quiet period leads to a summary. Durable: a restart does not lose it.
 */
export function scheduleSessionSummary(options: {
  queue: JobQueue;
  payload: SessionSummaryPayload;
  idleMs: number;
  abortSignal?: AbortSignal;
}): Promise<EnqueueJobResult> {
  const id = `${options.payload.sessionId}:${options.payload.lastIntentId}`;
  return options.queue.enqueue({
    name: SESSION_SUMMARY_JOB,
    payload: options.payload,
    jobId: id.length <= 200 ? id : `sha256:${createHash('sha256').update(id).digest('hex')}`,
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
