import type { JobQueue, Logger } from '@nexus/protocol';
import { enqueueWithRetry } from './enqueue-with-retry.ts';

/**
 * The same queue, except that `enqueue` waits out an unreachable queue (Redis restarting) for up
 * to `deadlineMs` instead of failing at once: the work behind a job (a memory extraction, a
 * scheduled delivery) is not lost to a blip. Everything else passes through.
 */
export function retryingJobQueue(
  queue: JobQueue,
  options: { deadlineMs: number; logger?: Logger; now?: () => number },
): JobQueue {
  const now = options.now ?? Date.now;
  return {
    enqueue: (enqueueOptions) =>
      enqueueWithRetry(queue, enqueueOptions, {
        deadlineAt: now() + options.deadlineMs,
        now,
        ...(options.logger ? { logger: options.logger } : {}),
      }),
    process: (processOptions) => queue.process(processOptions),
    parked: (parkedOptions) => queue.parked(parkedOptions),
    retryParked: (retryOptions) => queue.retryParked(retryOptions),
    counts: (countOptions) => queue.counts(countOptions),
    ...(queue.purgePayloads ? { purgePayloads: queue.purgePayloads.bind(queue) } : {}),
    ...(queue.jobState ? { jobState: queue.jobState.bind(queue) } : {}),
    close: (closeOptions) => queue.close(closeOptions),
  };
}
