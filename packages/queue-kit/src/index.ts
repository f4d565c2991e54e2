// Helpers shared by the JobQueue implementations (@nexus/queue-sqlite, @nexus/queue-bullmq), so
// they accept, retry and stop exactly alike, and the producers' side of waiting out an unreachable
// queue (`enqueueWithRetry`, Redis reconnection pacing). The contract suite is `@nexus/queue-kit/testing`.
export { type EnqueueRetryOptions, enqueueWithRetry } from './enqueue-with-retry.ts';
export { jobBackoffDelayMs } from './job-backoff-delay-ms.ts';
export {
  assertJobName,
  DEFAULT_MAX_JOB_PAYLOAD_BYTES,
  type NormalisedEnqueueOptions,
  normaliseConcurrency,
  normaliseEnqueueOptions,
} from './normalise-enqueue-options.ts';
export { oncePerInterval } from './once-per-interval.ts';
export { redisReconnectDelayMs } from './redis-reconnect-delay-ms.ts';
export { retryingJobQueue } from './retrying-job-queue.ts';
export { type JobRunOutcome, jobFailureReason, runJobHandler } from './run-job-handler.ts';
export { settlesWithin } from './settles-within.ts';
