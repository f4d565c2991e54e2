// Helpers shared by the JobQueue implementations (@nexus/queue-sqlite, @nexus/queue-bullmq), so
// they accept, retry and stop exactly alike. The contract suite is `@nexus/queue-kit/contract`.
export { type EnqueueRetryOptions, enqueueWithRetry } from './enqueue-with-retry.ts';
export { jobBackoffDelayMs } from './job-backoff-delay-ms.ts';
export {
  assertJobName,
  type NormalisedEnqueueOptions,
  normaliseConcurrency,
  normaliseEnqueueOptions,
} from './normalise-enqueue-options.ts';
export { retryingJobQueue } from './retrying-job-queue.ts';
export { type JobRunOutcome, jobFailureReason, runJobHandler } from './run-job-handler.ts';
export { settlesWithin } from './settles-within.ts';
