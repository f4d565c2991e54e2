import { type JobHandler, type Logger, NexusError } from '@nexus/protocol';
import { type JobRunOutcome, runJobHandler } from '@nexus/queue-kit';
import type { ClaimedJob, SqliteJobStore } from './sqlite-job-store.ts';

/** One leased job whose handler is running. */
export interface JobExecution {
  job: ClaimedJob;
  settled: Promise<void>;
  /** Stop waiting for the handler: on shutdown the job is handed back, on a lost lease it is left alone. */
  abandon(reason: 'shutdown' | 'lease-lost'): void;
}

/**
 * Runs the handler on a leased job; `onSettled` gets its outcome (`abandoned` when `abandon` came
 * first, the handler's signal then aborted with why).
 */
export function startJobExecution(options: {
  job: ClaimedJob;
  handler: JobHandler;
  store: SqliteJobStore;
  logger: Logger;
  onSettled: (outcome: JobRunOutcome) => void;
}): JobExecution {
  const { job, store, logger } = options;
  const controller = new AbortController();
  let abandonWith: ((outcome: JobRunOutcome) => void) | undefined;
  const abandoned = new Promise<JobRunOutcome>((resolve) => {
    abandonWith = resolve;
  });
  const handled = runJobHandler(options.handler, {
    id: job.id,
    name: job.name,
    payload: job.payload,
    attempt: job.attemptsStarted,
    ...(job.traceparent ? { traceparent: job.traceparent } : {}),
    abortSignal: controller.signal,
  });
  return {
    job,
    settled: Promise.race([handled, abandoned]).then(options.onSettled),
    abandon(reason) {
      if (controller.signal.aborted) return;
      if (reason === 'shutdown') {
        controller.abort(
          new NexusError({ code: 'shutting_down', message: 'The job queue is closing.', retryable: true }),
        );
        if (!releaseLease(store, job, logger)) logger.warn({ jobId: job.id }, 'lease lost before release');
      } else {
        controller.abort(
          new NexusError({ code: 'timeout', message: 'The job lease was lost.', retryable: true }),
        );
      }
      abandonWith?.({ kind: 'abandoned' });
    },
  };
}

/** Hands a job back on shutdown; false when the lease was already lost or the write failed. */
function releaseLease(store: SqliteJobStore, job: ClaimedJob, logger: Logger): boolean {
  try {
    return store.release(job);
  } catch (error) {
    logger.error({ err: error }, 'job queue write failed; the lease will expire and the job run again');
    return false;
  }
}

/** Extends the leases of running jobs; a job whose lease another worker took is abandoned. */
export function renewLeases(options: {
  store: SqliteJobStore;
  executions: Iterable<JobExecution>;
  leaseUntil: number;
  logger: Logger;
}): void {
  const { store, logger } = options;
  for (const execution of options.executions) {
    let renewed: boolean;
    try {
      renewed = store.renew(execution.job, options.leaseUntil);
    } catch (error) {
      logger.warn({ err: error, jobId: execution.job.id }, 'lease renewal failed; trying again');
      continue;
    }
    if (!renewed) {
      logger.warn({ jobId: execution.job.id }, 'job lease lost to another worker; aborting the handler');
      execution.abandon('lease-lost');
    }
  }
}
