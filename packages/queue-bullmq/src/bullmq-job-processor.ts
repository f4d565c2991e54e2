import {
  isPermanentJobError,
  type JobHandler,
  type JobProcessor,
  type Logger,
  NexusError,
} from '@nexus/protocol';
import {
  type JobRunOutcome,
  jobFailureReason,
  oncePerInterval,
  runJobHandler,
  settlesWithin,
} from '@nexus/queue-kit';
import { type Job, UnrecoverableError, WaitingError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { decodeJobId } from './job-id-codec.ts';

export interface BullMqJobProcessorOptions {
  name: string;
  handler: JobHandler;
  concurrency: number;
  connection: Redis;
  prefix: string;
  lockDurationMs: number;
  stalledIntervalMs: number;
  maxStalledCount: number;
  closeTimeoutMs: number;
  logger: Logger;
  onStopped: () => void;
}

type Outcome = JobRunOutcome;

interface Execution {
  abandon(reason: 'shutdown' | 'lock-lost'): void;
}

/**
 * One `process()` call on a BullMQ Worker. The Worker leases (locks) jobs and renews the locks;
 * this wrapper maps outcomes onto the port: PermanentJobError → UnrecoverableError (failed at
 * once), a shutdown past the deadline → the job moved back to wait without using an attempt.
 */
export function startBullMqJobProcessor(options: BullMqJobProcessorOptions): JobProcessor {
  const { logger } = options;
  const executions = new Map<string, Execution>();
  let stopped: Promise<void> | undefined;

  async function processJob(job: Job, token?: string): Promise<void> {
    const jobKey = job.id ?? '';
    const controller = new AbortController();
    let abandonWith: ((outcome: Outcome) => void) | undefined;
    const abandoned = new Promise<Outcome>((resolve) => {
      abandonWith = resolve;
    });
    let handBack = false;
    executions.set(jobKey, {
      abandon(reason) {
        if (controller.signal.aborted) return;
        handBack = reason === 'shutdown';
        controller.abort(
          reason === 'shutdown'
            ? new NexusError({ code: 'shutting_down', message: 'The job queue is closing.', retryable: true })
            : new NexusError({ code: 'timeout', message: 'The job lock was lost.', retryable: true }),
        );
        abandonWith?.({ kind: 'abandoned' });
      },
    });
    const handled = runJobHandler(options.handler, {
      id: decodeJobId(jobKey),
      name: options.name,
      payload: job.data,
      attempt: job.attemptsStarted,
      ...(job.opts.telemetry?.metadata ? { traceparent: job.opts.telemetry.metadata } : {}),
      abortSignal: controller.signal,
    });
    const outcome = await Promise.race([handled, abandoned]);
    executions.delete(jobKey);
    if (outcome.kind === 'done') return;
    if (outcome.kind === 'abandoned') {
      // WaitingError tells the Worker the job has been dealt with; moving it back to wait keeps
      // its attempt budget. When the lock was lost, another worker owns the job: leave it alone.
      if (handBack) await job.moveToWait(token);
      throw new WaitingError();
    }
    const reason = jobFailureReason(outcome.error);
    if (isPermanentJobError(outcome.error)) throw new UnrecoverableError(reason);
    throw outcome.error instanceof Error ? outcome.error : new Error(reason);
  }

  const worker = new Worker(options.name, processJob, {
    connection: options.connection,
    prefix: options.prefix,
    concurrency: options.concurrency,
    lockDuration: options.lockDurationMs,
    stalledInterval: options.stalledIntervalMs,
    maxStalledCount: options.maxStalledCount,
    autorun: true,
  });
  worker.on(
    'error',
    oncePerInterval((error: Error) => logger.warn({ err: error }, 'job worker error')),
  );
  worker.on('lockRenewalFailed', (jobIds) => {
    for (const jobId of jobIds) {
      logger.warn({ jobId: decodeJobId(jobId) }, 'job lock lost; aborting the handler');
      executions.get(jobId)?.abandon('lock-lost');
    }
  });
  worker.on('failed', (job, error) => {
    if (!job) return;
    const jobLogger = logger.child({ jobId: decodeJobId(job.id ?? ''), attempt: job.attemptsStarted });
    if (job.finishedOn) jobLogger.error({ err: error, failures: job.attemptsMade }, 'job parked');
    else jobLogger.warn({ err: error, failures: job.attemptsMade }, 'job failed; will retry');
  });

  async function stop(stopOptions?: { timeoutMs?: number }): Promise<void> {
    stopped ??= (async () => {
      const closing = worker.close();
      const timeoutMs = Math.max(0, stopOptions?.timeoutMs ?? options.closeTimeoutMs);
      if (!(await settlesWithin(closing, timeoutMs))) {
        for (const execution of executions.values()) execution.abandon('shutdown');
      }
      await closing;
      options.onStopped();
    })();
    return stopped;
  }

  return { stop };
}
