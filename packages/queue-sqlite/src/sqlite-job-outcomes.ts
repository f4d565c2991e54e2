import { isPermanentJobError, type Logger } from '@nexus/protocol';
import { type JobRunOutcome, jobBackoffDelayMs, jobFailureReason } from '@nexus/queue-kit';
import type { ClaimedJob, SqliteJobStore } from './sqlite-job-store.ts';

/**
 * A job whose handler finished, with what is to be stored for it, decided once when it finished;
 * `kept`/`error` say what writing it did.
 */
export interface FinishedJob {
  job: ClaimedJob;
  next:
    | { kind: 'complete'; at: number }
    | { kind: 'park'; at: number; error: unknown; failures: number }
    | { kind: 'retry'; runAt: number; error: unknown; failures: number };
  kept?: boolean;
  error?: Error;
}

/** What a handler's outcome means for its job at `at`: done, parked (permanent or out of attempts), or retried. */
export function finishedJob(
  job: ClaimedJob,
  outcome: Exclude<JobRunOutcome, { kind: 'abandoned' }>,
  at: number,
): FinishedJob {
  if (outcome.kind === 'done') return { job, next: { kind: 'complete', at } };
  const failures = job.attemptsFailed + 1;
  if (isPermanentJobError(outcome.error) || failures >= job.maxAttempts) {
    return { job, next: { kind: 'park', at, error: outcome.error, failures } };
  }
  const runAt = at + jobBackoffDelayMs(job.backoff, failures);
  return { job, next: { kind: 'retry', runAt, error: outcome.error, failures } };
}

/** Inside the commit's transaction: each outcome one statement, so one failure undoes only itself. */
export function writeOutcomes(store: SqliteJobStore, outcomes: FinishedJob[]): void {
  for (const entry of outcomes) {
    const { job, next } = entry;
    const written = store.writeAlone(() =>
      next.kind === 'complete'
        ? store.complete(job, next.at)
        : next.kind === 'park'
          ? store.park(job, next.at, jobFailureReason(next.error))
          : store.retryLater(job, next.runAt, jobFailureReason(next.error)),
    );
    entry.kept = written === true;
    if (written instanceof Error) entry.error = written;
  }
}

/** After the commit: what happened to each outcome, in the log. */
export function reportOutcomes(logger: Logger, outcomes: FinishedJob[]): void {
  for (const { job, next, kept, error } of outcomes) {
    const jobLogger = logger.child({ jobId: job.id, attempt: job.attemptsStarted });
    if (error) {
      jobLogger.error({ err: error }, 'job queue write failed; the lease will expire and the job run again');
    } else if (!kept) {
      jobLogger.warn(
        { outcome: next.kind === 'complete' ? 'done' : 'failed' },
        'job lease lost before its outcome was stored',
      );
    } else if (next.kind === 'park') {
      jobLogger.error({ err: next.error, failures: next.failures }, 'job parked');
    } else if (next.kind === 'retry') {
      jobLogger.warn(
        { err: next.error, failures: next.failures, runAt: next.runAt },
        'job failed; will retry',
      );
    }
  }
}
