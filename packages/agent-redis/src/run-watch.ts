import type { JobQueue, JobState, Logger } from '@nexus/protocol';
import { NexusError } from '@nexus/protocol';
import { AGENT_RUN_JOB } from './agent-run-protocol.ts';

export interface RunWatchOptions {
  queue: JobQueue;
  turnId: string;
  /** How long Redis may stay unreachable (enqueue, checks) before the turn gives up. */
  dispatchDeadlineMs: number;
  /** Times a lost run is sent again before the turn fails. */
  maxRedispatches: number;
  /** Enqueues the run under `jobId`, retrying an unreachable Redis until `deadlineAt`. */
  dispatch(jobId: string, deadlineAt: number): Promise<void>;
  /** The turn is waiting: for Redis, or for a free worker. Called at most once. */
  onWaiting(): void;
  /** Sending or checking the run failed for good; the turn ends with this error. */
  onFailed(error: unknown): void;
  now: () => number;
  logger: Logger;
}

export interface RunWatch {
  /** Sends the run the first time. */
  start(): void;
  /** Tells the person the turn waits (once per turn). */
  tellWaiting(): void;
  /**
   * The turn has heard nothing for a while: asks the queue where its run is, and sends it again
   * when Redis no longer has it (restarted without persistence, evicted) or it ended without the
   * turn hearing its end (the last messages were lost while Redis was down). Does nothing while a
   * dispatch or another check is under way.
   */
  probe(): void;
}

/** A check of a frozen Redis (SIGSTOP, swapped out) hangs rather than fails; this bounds it. */
const PROBE_TIMEOUT_MS = 5000;

export function watchRun(options: RunWatchOptions): RunWatch {
  const { now, logger } = options;
  let jobId = options.turnId;
  let redispatches = 0;
  let busy = false;
  let unreachableSince: number | undefined;
  let toldWaiting = false;
  const waiting = () => {
    if (toldWaiting) return;
    toldWaiting = true;
    options.onWaiting();
  };
  const deadlineFromNow = () => now() + options.dispatchDeadlineMs;

  function exclusively(work: () => Promise<void>): void {
    if (busy) return;
    busy = true;
    work()
      .catch((error: unknown) => options.onFailed(error))
      .finally(() => {
        busy = false;
      });
  }

  async function check(queue: JobQueue & Required<Pick<JobQueue, 'jobState'>>): Promise<void> {
    let state: JobState;
    try {
      state = await boundedJobState(queue, jobId);
      unreachableSince = undefined;
    } catch (error) {
      unreachableSince ??= now();
      logger.warn({ err: error, jobId }, 'cannot check the agent run on Redis; waiting for Redis');
      waiting();
      if (now() - unreachableSince < options.dispatchDeadlineMs) return;
      throw new NexusError({
        code: 'queue_unavailable',
        retryable: true,
        message: `Redis stayed unreachable for ${Math.round(options.dispatchDeadlineMs / 1000)} s while this message was being answered; it is kept and will be answered after a restart, or can be sent again.`,
        cause: error,
      });
    }
    if (state === 'active') return;
    if (state === 'waiting' || state === 'delayed') {
      waiting();
      return;
    }
    if (redispatches >= options.maxRedispatches) {
      throw new NexusError({
        code: 'internal',
        retryable: true,
        message: `The agent run was lost ${redispatches + 1} times on the way to a worker.`,
      });
    }
    redispatches++;
    const previous = jobId;
    jobId = `${options.turnId}.resent-${redispatches}`;
    logger.warn({ previousJobId: previous, state, jobId }, 'agent run lost inside Redis; sending it again');
    await options.dispatch(jobId, deadlineFromNow());
  }

  return {
    start: () => exclusively(() => options.dispatch(jobId, deadlineFromNow())),
    tellWaiting: waiting,
    probe() {
      const queue = options.queue;
      if (!queue.jobState) return;
      exclusively(() => check(queue as JobQueue & Required<Pick<JobQueue, 'jobState'>>));
    },
  };
}

async function boundedJobState(
  queue: JobQueue & Required<Pick<JobQueue, 'jobState'>>,
  jobId: string,
): Promise<JobState> {
  const signal = AbortSignal.timeout(PROBE_TIMEOUT_MS);
  const late = new Promise<never>((_, reject) =>
    signal.addEventListener('abort', () => reject(signal.reason), { once: true }),
  );
  const state = queue.jobState({ name: AGENT_RUN_JOB, jobId, abortSignal: signal });
  state.catch(() => undefined);
  return Promise.race([state, late]);
}
