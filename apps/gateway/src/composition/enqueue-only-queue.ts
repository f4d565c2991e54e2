import type { JobProcessor, JobQueue, Logger } from '@nexus/protocol';

/**
 * The same queue, except that `process()` for the listed job names registers nothing: this
 * process only enqueues those jobs and leaves them to other processes (the gateway role leaves
 * memory extraction to its workers).
 */
export function enqueueOnlyQueue(queue: JobQueue, names: readonly string[], logger: Logger): JobQueue {
  return {
    enqueue: (options) => queue.enqueue(options),
    process(options): JobProcessor {
      if (!names.includes(options.name)) return queue.process(options);
      logger.info({ jobName: options.name }, 'jobs of this name are left to the workers');
      return { stop: async () => {} };
    },
    parked: (options) => queue.parked(options),
    retryParked: (options) => queue.retryParked(options),
    counts: (options) => queue.counts(options),
    ...(queue.purgePayloads ? { purgePayloads: queue.purgePayloads.bind(queue) } : {}),
    close: (options) => queue.close(options),
  };
}
