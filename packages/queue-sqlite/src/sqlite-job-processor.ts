import {
  isPermanentJobError,
  type JobHandler,
  type JobProcessor,
  type Logger,
  NexusError,
} from '@nexus/protocol';
import {
  type JobRunOutcome,
  jobBackoffDelayMs,
  jobFailureReason,
  runJobHandler,
  settlesWithin,
} from '@nexus/queue-kit';
import type { ClaimedJob, SqliteJobStore } from './sqlite-job-store.ts';

export interface SqliteJobProcessorOptions {
  store: SqliteJobStore;
  name: string;
  handler: JobHandler;
  concurrency: number;
  leaseMs: number;
  pollIntervalMs: number;
  maxLeaseExpiries: number;
  closeTimeoutMs: number;
  now: () => number;
  generateToken: () => string;
  logger: Logger;
  onStopped: () => void;
}

export interface SqliteJobProcessor extends JobProcessor {
  /** Look for work now (a job was enqueued or retried in this process). */
  wake(): void;
}

type Outcome = JobRunOutcome;

/**
 * A job whose handler finished, with what is to be stored for it, decided once when it finished;
 * `kept`/`error` say what writing it did.
 */
interface FinishedJob {
  job: ClaimedJob;
  next:
    | { kind: 'complete'; at: number }
    | { kind: 'park'; at: number; error: unknown; failures: number }
    | { kind: 'retry'; runAt: number; error: unknown; failures: number };
  kept?: boolean;
  error?: Error;
}

interface Execution {
  job: ClaimedJob;
  settled: Promise<void>;
  /** Stop waiting for the handler: on shutdown the job is handed back, on a lost lease it is left alone. */
  abandon(reason: 'shutdown' | 'lease-lost'): void;
}

/**
 * One `process()` call: a pump that leases up to `concurrency` jobs when woken (same-process
 * enqueue, a finished handler, the next delayed job falling due) or every poll interval (work
 * from other processes, expired leases), renews leases while handlers run, and records outcomes.
 */
export function startSqliteJobProcessor(options: SqliteJobProcessorOptions): SqliteJobProcessor {
  const { store, name, logger, now } = options;
  const executions = new Map<number, Execution>();
  /**
   * Jobs whose handler finished, written by the next pump in the transaction that also leases
   * the next jobs (one commit for both, not one each): at most one event-loop turn later, so a
   * crash in between only runs the job again, as a crash during the handler would.
   */
  const finished: FinishedJob[] = [];
  let pollTimer: NodeJS.Timeout | undefined;
  let pumpScheduled = false;
  let stopping = false;
  let stopped: Promise<void> | undefined;

  const renewTimer = setInterval(renewLeases, Math.max(1, Math.floor(options.leaseMs / 3)));
  renewTimer.unref();

  function schedule(): void {
    if (pumpScheduled || stopping) return;
    pumpScheduled = true;
    setImmediate(pump);
  }

  function pump(): void {
    pumpScheduled = false;
    if (stopping) {
      commitFinishedOnStop();
      return;
    }
    clearTimeout(pollTimer);
    let delay = options.pollIntervalMs;
    const free = options.concurrency - executions.size;
    try {
      const leased = commitFinished(free);
      if (free > 0 && leased === free) {
        schedule();
        return;
      }
      const next = free > 0 ? store.nextRunAt(name) : undefined;
      if (next !== undefined) delay = Math.min(delay, Math.max(1, next - now()));
    } catch (error) {
      logger.error({ err: error }, 'job queue poll failed; retrying at the next interval');
    }
    pollTimer = setTimeout(pump, delay);
  }

  /**
   * Writes the finished jobs' outcomes and leases up to `free` ready jobs, in one transaction;
   * returns how many it leased. When it throws nothing was kept, and the outcomes wait for the next.
   */
  function commitFinished(free: number): number {
    const outcomes = finished.splice(0);
    if (outcomes.length === 0 && free <= 0) return 0;
    const time = now();
    let leased: ReturnType<SqliteJobStore['claim']> | undefined;
    try {
      leased = store.batch(() => {
        writeOutcomes(outcomes);
        if (free <= 0) return undefined;
        return store.claim({
          name,
          limit: free,
          token: options.generateToken(),
          now: time,
          leaseUntil: time + options.leaseMs,
          maxLeaseExpiries: options.maxLeaseExpiries,
        });
      });
    } catch (error) {
      finished.unshift(...outcomes);
      throw error;
    }
    reportOutcomes(outcomes);
    for (const job of leased?.recovered ?? []) {
      if (job.parked) logger.error({ jobId: job.id }, 'job parked: its lease expired too often');
      else logger.warn({ jobId: job.id }, 'job lease expired (worker lost); it will run again');
    }
    for (const job of leased?.claimed ?? []) start(job);
    return leased?.claimed.length ?? 0;
  }

  /** Shutting down, no pump will run: the finished jobs' outcomes are written now. */
  function commitFinishedOnStop(): void {
    try {
      commitFinished(0);
    } catch (error) {
      logger.error({ err: error }, 'job queue write failed; the leases will expire and the jobs run again');
    }
  }

  function start(job: ClaimedJob): void {
    const controller = new AbortController();
    let abandonWith: ((outcome: Outcome) => void) | undefined;
    const abandoned = new Promise<Outcome>((resolve) => {
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
    const execution: Execution = {
      job,
      settled: Promise.race([handled, abandoned]).then((outcome) => {
        executions.delete(job.seq);
        record(job, outcome);
        schedule();
      }),
      abandon(reason) {
        if (controller.signal.aborted) return;
        if (reason === 'shutdown') {
          controller.abort(
            new NexusError({ code: 'shutting_down', message: 'The job queue is closing.', retryable: true }),
          );
          if (!tryStore(() => store.release(job)))
            logger.warn({ jobId: job.id }, 'lease lost before release');
        } else {
          controller.abort(
            new NexusError({ code: 'timeout', message: 'The job lease was lost.', retryable: true }),
          );
        }
        abandonWith?.({ kind: 'abandoned' });
      },
    };
    executions.set(job.seq, execution);
  }

  function record(job: ClaimedJob, outcome: Outcome): void {
    if (outcome.kind === 'abandoned') return;
    const at = now();
    const failures = job.attemptsFailed + 1;
    finished.push({
      job,
      next:
        outcome.kind === 'done'
          ? { kind: 'complete', at }
          : isPermanentJobError(outcome.error) || failures >= job.maxAttempts
            ? { kind: 'park', at, error: outcome.error, failures }
            : {
                kind: 'retry',
                runAt: at + jobBackoffDelayMs(job.backoff, failures),
                error: outcome.error,
                failures,
              },
    });
    if (stopping) commitFinishedOnStop();
  }

  /** Inside the commit's transaction: each outcome in its own savepoint, so one failure undoes only itself. */
  function writeOutcomes(outcomes: FinishedJob[]): void {
    for (const entry of outcomes) {
      const { job, next } = entry;
      const written = store.inSavepoint(() =>
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
  function reportOutcomes(outcomes: FinishedJob[]): void {
    for (const { job, next, kept, error } of outcomes) {
      const jobLogger = logger.child({ jobId: job.id, attempt: job.attemptsStarted });
      if (error) {
        jobLogger.error(
          { err: error },
          'job queue write failed; the lease will expire and the job run again',
        );
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

  function tryStore(write: () => boolean): boolean {
    try {
      return write();
    } catch (error) {
      logger.error({ err: error }, 'job queue write failed; the lease will expire and the job run again');
      return false;
    }
  }

  function renewLeases(): void {
    const leaseUntil = now() + options.leaseMs;
    for (const execution of executions.values()) {
      let renewed: boolean;
      try {
        renewed = store.renew(execution.job, leaseUntil);
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

  async function stop(stopOptions?: { timeoutMs?: number }): Promise<void> {
    stopping = true;
    clearTimeout(pollTimer);
    // Outcomes a pump was about to write with its next claim: written now, before the store closes.
    commitFinishedOnStop();
    stopped ??= (async () => {
      const pending = [...executions.values()].map((execution) => execution.settled);
      if (pending.length > 0 && !(await settlesWithin(Promise.all(pending), timeoutOf(stopOptions)))) {
        for (const execution of executions.values()) execution.abandon('shutdown');
        await Promise.all(pending);
      }
      clearInterval(renewTimer);
      options.onStopped();
    })();
    return stopped;
  }

  function timeoutOf(stopOptions: { timeoutMs?: number } | undefined): number {
    return Math.max(0, stopOptions?.timeoutMs ?? options.closeTimeoutMs);
  }

  schedule();
  return { wake: schedule, stop };
}
