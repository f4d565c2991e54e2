import type { JobHandler, JobProcessor, Logger } from '@nexus/protocol';
import { type JobRunOutcome, settlesWithin } from '@nexus/queue-kit';
import { type JobExecution, renewLeases, startJobExecution } from './sqlite-job-execution.ts';
import { type FinishedJob, finishedJob, reportOutcomes, writeOutcomes } from './sqlite-job-outcomes.ts';
import type { ClaimedJob, ClaimResult, ReadyMark, SqliteJobStore } from './sqlite-job-store.ts';

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

/**
 * One `process()` call: a pump that leases up to `concurrency` jobs when woken (same-process
 * enqueue, a finished handler, the next delayed job falling due) or every poll interval (work
 * from other processes, expired leases), renews leases while handlers run, and records outcomes.
 */
export function startSqliteJobProcessor(options: SqliteJobProcessorOptions): SqliteJobProcessor {
  const { store, name, logger, now } = options;
  const executions = new Map<number, JobExecution>();
  /**
   * Jobs whose handler finished, written by the next pump in the transaction that also leases
   * the next jobs (one commit for both, not one each): at most one event-loop turn later, so a
   * crash in between only runs the job again, as a crash during the handler would.
   */
  const finished: FinishedJob[] = [];
  let pollTimer: NodeJS.Timeout | undefined;
  /**
   * When a claim next hands back expired leases. Once per poll interval, as an idle processor
   * polls: a busy one claims after every finished job, and checking every lease each time was
   * most of a claim's cost. An expired lease is noticed at most one poll interval later.
   */
  let recoverAt = Number.NEGATIVE_INFINITY;
  /**
   * What the last claim that left slots free saw: no job of this name due before `until`. It holds
   * while the store's ready mark stays the same (no other connection committed, this one made no
   * job of the name ready), so a pump after a finished job writes its outcome without claiming.
   */
  let idle: { until: number; mark: ReadyMark } | undefined;
  let pumpScheduled = false;
  let stopping = false;
  let stopped: Promise<void> | undefined;

  const renewTimer = setInterval(
    () =>
      renewLeases({ store, executions: executions.values(), leaseUntil: now() + options.leaseMs, logger }),
    Math.max(1, Math.floor(options.leaseMs / 3)),
  );
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
      if (free > 0 && idle) delay = Math.min(delay, Math.max(1, idle.until - now()));
    } catch (error) {
      logger.error({ err: error }, 'job queue poll failed; retrying at the next interval');
    }
    pollTimer = setTimeout(pump, delay);
  }

  /**
   * Writes the finished jobs' outcomes and leases up to `free` ready jobs, in one transaction;
   * returns how many it leased. When it throws nothing was kept, and the outcomes wait for the next.
   * No claim when the last one saw nothing due before now and nothing has changed since.
   */
  function commitFinished(free: number): number {
    const outcomes = finished.splice(0);
    const time = now();
    const recover = free > 0 && time >= recoverAt;
    const claiming =
      free > 0 && (recover || !idle || time >= idle.until || !store.sameReadyMark(name, idle.mark));
    if (outcomes.length === 0 && !claiming) return 0;
    if (recover) recoverAt = time + options.pollIntervalMs;
    let leased: ClaimResult | undefined;
    let mark: ReadyMark | undefined;
    try {
      leased = store.batch(() => {
        writeOutcomes(store, outcomes);
        if (!claiming) return undefined;
        const claim = store.claim({
          name,
          limit: free,
          token: options.generateToken(),
          now: time,
          leaseUntil: time + options.leaseMs,
          maxLeaseExpiries: options.maxLeaseExpiries,
          recover,
        });
        // The committed version is the pass's reading, taken at or before this transaction: a
        // commit by another connection after it moves the version, so the next pump claims again
        // (one claim too many at worst, never a job missed). Only needed when slots stay free (a
        // busy processor claims after every job anyway).
        if (claim.claimed.length < free) mark = store.readyMark(name);
        return claim;
      });
    } catch (error) {
      finished.unshift(...outcomes);
      if (recover) recoverAt = Number.NEGATIVE_INFINITY;
      idle = undefined;
      throw error;
    }
    if (claiming) idle = mark && { until: leased?.nextRunAt ?? Number.POSITIVE_INFINITY, mark };
    reportOutcomes(logger, outcomes);
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
    const execution = startJobExecution({
      job,
      handler: options.handler,
      store,
      logger,
      onSettled: (outcome) => {
        executions.delete(job.seq);
        record(job, outcome);
        schedule();
      },
    });
    executions.set(job.seq, execution);
  }

  function record(job: ClaimedJob, outcome: JobRunOutcome): void {
    if (outcome.kind === 'abandoned') return;
    finished.push(finishedJob(job, outcome, now()));
    if (stopping) commitFinishedOnStop();
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
