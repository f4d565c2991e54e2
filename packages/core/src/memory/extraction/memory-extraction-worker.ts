import type { MemoryPort } from '@nexus/protocol';
import {
  type JobProcessor,
  type JobQueue,
  type Logger,
  PermanentJobError,
  silentLogger,
} from '@nexus/protocol';
import type { LanguageModel } from 'ai';
import { type RepliesFirst, waitWhileRepliesQueue } from '../background/replies-first.ts';
import { type ExtractionReport, extractMemories } from './extract-memories.ts';
import { MEMORY_EXTRACT_JOB, memoryExtractionPayloadSchema } from './memory-extraction-job.ts';

export interface MemoryExtractionWorkerOptions {
  queue: JobQueue;
  memory: MemoryPort;
  /** The extraction model: a cheaper one than the chat model is usually enough. */
  model: LanguageModel;
  /** Extraction jobs handled at the same time by this process. Default 2. */
  concurrency?: number;
  now?: () => number;
  /** The speaker's time zone, for "today" in the prompt; default UTC. */
  timeZoneOf?: (userId: string) => string;
  logger?: Logger;
  /**
   * In the process that runs the turns: each job first waits (a bounded time) while turns wait
   * for a slot, so extraction does not slow the replies (`replies-first.ts`).
   */
  repliesFirst?: RepliesFirst;
  /** `deferredMs`: how long the job waited for queued turns first (`repliesFirst`), not in `durationMs`. */
  onExtracted?: (
    report: ExtractionReport & { jobId: string; attempt: number; durationMs: number; deferredMs: number },
  ) => void;
}

/**
 * Handles `memory.extract` jobs. A malformed payload or a model that keeps answering invalid JSON
 * parks the job with the reason (`PermanentJobError`); an unreachable model or memory service
 * throws so the queue retries with backoff.
 */
export function startMemoryExtractionWorker(options: MemoryExtractionWorkerOptions): JobProcessor {
  const logger = (options.logger ?? silentLogger).child({ component: 'memory-extraction' });
  const now = options.now ?? Date.now;
  return options.queue.process({
    name: MEMORY_EXTRACT_JOB,
    concurrency: options.concurrency ?? 2,
    handler: async (job) => {
      const parsed = memoryExtractionPayloadSchema.safeParse(job.payload);
      if (!parsed.success) {
        throw new PermanentJobError({
          code: 'invalid_intent',
          message: `memory.extract: invalid payload: ${parsed.error.issues[0]?.message ?? 'unknown shape'}`,
        });
      }
      const deferredMs = await waitWhileRepliesQueue(options.repliesFirst, job.abortSignal);
      const startedAt = now();
      const jobLogger = logger.child({ jobId: job.id, conversationId: parsed.data.sessionId });
      try {
        const report = await extractMemories({
          payload: parsed.data,
          memory: options.memory,
          model: options.model,
          now,
          ...(options.timeZoneOf ? { timeZone: options.timeZoneOf(parsed.data.userId) } : {}),
          logger: jobLogger,
          abortSignal: job.abortSignal,
        });
        const durationMs = now() - startedAt;
        jobLogger.info({ ...report, attempt: job.attempt, durationMs, deferredMs }, 'memory extraction done');
        options.onExtracted?.({ ...report, jobId: job.id, attempt: job.attempt, durationMs, deferredMs });
      } catch (error) {
        const level = error instanceof PermanentJobError ? 'error' : 'warn';
        jobLogger[level]({ attempt: job.attempt, err: error }, 'memory extraction failed');
        throw error;
      }
    },
  });
}
