import { type ErrorCode, NexusError } from './error-codes.ts';

/**
 * Background work that must survive restarts (memory extraction, agent runs on workers).
 * Delivery is at least once: a handler may see a job again after a crash or a shutdown, so
 * handlers are idempotent. A job that keeps failing is parked, never silently dropped.
 * Implementations: @nexus/queue-sqlite (embedded) and @nexus/queue-bullmq; their shared helpers
 * and contract suite are in @nexus/queue-kit.
 */
export interface JobQueue {
  enqueue(options: EnqueueJobOptions): Promise<EnqueueJobResult>;
  /** Starts handling jobs of one name; jobs enqueued before or after are both picked up. */
  process(options: ProcessJobsOptions): JobProcessor;
  /** Jobs that used up their attempts or failed permanently, newest first. */
  parked(options?: ListParkedJobsOptions): Promise<ParkedJob[]>;
  /** Puts a parked job back in line with a fresh attempt budget. */
  retryParked(options: RetryParkedJobOptions): Promise<RetryParkedJobResult>;
  counts(options?: CountJobsOptions): Promise<JobCounts>;
  /**
   * Where one job is, `missing` when the queue no longer knows it (a Redis restarted without
   * persistence, an evicted key, or completed past retention). Optional: lets a producer notice
   * work lost inside the queue and send it again.
   */
  jobState?(options: JobStateOptions): Promise<JobState>;
  /**
   * Deletes every job whose payload holds one of `values` as a JSON string (a person's ids, for
   * `/forget-me`): waiting, delayed, parked and completed ones. Optional: a queue that cannot
   * purge leaves the caller to say so.
   */
  purgePayloads?(options: PurgePayloadsOptions): Promise<PurgePayloadsResult>;
  /**
   * Stops taking jobs, waits for running handlers up to `timeoutMs`, then aborts the rest
   * through their `abortSignal` and hands their jobs back (without using up an attempt) so
   * another process, or this one after a restart, runs them again.
   */
  close(options?: CloseJobQueueOptions): Promise<void>;
}

export interface JobBackoff {
  /** `exponential`: delayMs, 2·delayMs, 4·delayMs… after the 1st, 2nd, 3rd failure. */
  type: 'exponential' | 'fixed';
  delayMs: number;
}

export interface EnqueueJobOptions {
  /** Letters, digits, `.`, `_`, `-` (it names a Redis key space in BullMQ). */
  name: string;
  /** Delivered to the handler as its JSON round trip (Dates become strings). */
  payload: unknown;
  /** Total runs allowed, the first included. Default 3. */
  attempts?: number;
  /** Default: exponential from 1 s. */
  backoff?: JobBackoff;
  /**
   * Idempotency key, unique within `name`: enqueueing an id that is still known (waiting,
   * running, parked, or completed within the retention window) adds nothing and reports
   * `deduplicated: true`. Without it a fresh id is generated.
   */
  jobId?: string;
  /** Run no earlier than this many milliseconds from now. */
  delayMs?: number;
  /**
   * Debounce, for work that should run once things have been quiet for `delayMs` (required, > 0):
   * of the jobs enqueued with this key (within `name`), one at most waits for its first run. An
   * enqueue while it waits replaces its payload and options and moves its run time to `delayMs`
   * from now, instead of adding a job. A job that has started is never disturbed: an enqueue
   * while it runs leaves a follow-up (the latest payload) that runs no earlier than `delayMs`
   * after that enqueue (BullMQ: after the running job finishes). So the last payload always
   * runs, `delayMs` or more after the last enqueue. The queue picks the ids (no `jobId`);
   * `deduplicated` is true when the enqueue went to a job already there (BullMQ replaces a waiting
   * job with a new one and says false). A job due but not yet taken by a worker is still waiting:
   * it is replaced too. Waiting for a retry, a job may be replaced (BullMQ) or kept beside its
   * follow-up (SQLite).
   */
  debounceKey?: string;
  /**
   * W3C trace context (`00-<trace id>-<span id>-<flags>`) of the work that enqueued the job,
   * handed back to the handler so its spans join that trace. Opaque to the queue.
   */
  traceparent?: string;
  abortSignal?: AbortSignal;
}

export interface EnqueueJobResult {
  jobId: string;
  deduplicated: boolean;
}

/** What a handler receives. */
export interface ActiveJob {
  id: string;
  name: string;
  payload: unknown;
  /** 1 on the first run; counts every start, including runs lost to a crash or shutdown. */
  attempt: number;
  /** The enqueuer's W3C trace context, when it passed one. */
  traceparent?: string;
  /** Aborted when the queue shuts down or this process lost the job's lease; stop promptly. */
  abortSignal: AbortSignal;
}

/**
 * Resolve when done. Throw to retry with backoff; throw `PermanentJobError` to park at once
 * (retrying would repeat the failure, e.g. an invalid payload).
 */
export type JobHandler = (job: ActiveJob) => Promise<void>;

export interface ProcessJobsOptions {
  name: string;
  handler: JobHandler;
  /** Jobs of this name run at most this many at a time in this processor. Default 1. */
  concurrency?: number;
}

export interface JobProcessor {
  /** Same contract as `JobQueue.close`, for this processor only. */
  stop(options?: CloseJobQueueOptions): Promise<void>;
}

export interface CloseJobQueueOptions {
  /** How long running handlers may take to finish before they are aborted. Default 10 s. */
  timeoutMs?: number;
}

export interface ParkedJob {
  id: string;
  name: string;
  payload: unknown;
  /** Failed runs counted against the attempt budget. */
  attempts: number;
  /** The last failure's message. */
  reason: string;
  /** Epoch milliseconds. */
  failedAt: number;
}

export interface ListParkedJobsOptions {
  name?: string;
  /** Default 100. */
  limit?: number;
  abortSignal?: AbortSignal;
}

export interface RetryParkedJobOptions {
  jobId: string;
  /** Restricts the search to one name; without it, a parked job with this id under any name. */
  name?: string;
  abortSignal?: AbortSignal;
}

export interface RetryParkedJobResult {
  /** False when no parked job has this id. */
  retried: boolean;
}

export interface PurgePayloadsOptions {
  /** Matched as whole JSON string values anywhere in the payload, e.g. a user id. */
  values: readonly string[];
  abortSignal?: AbortSignal;
}

export interface PurgePayloadsResult {
  /** How many jobs were deleted. */
  removed: number;
  /** The ids of every matching job (deleted or still running), e.g. to find their other traces. */
  jobIds: string[];
  /**
   * Matching jobs a worker was running: their handlers may still finish what they started (SQLite
   * deletes them anyway and the worker loses its lease; BullMQ blanks their stored payload).
   */
  running: number;
}

export interface CountJobsOptions {
  name?: string;
  abortSignal?: AbortSignal;
}

export interface JobStateOptions {
  name: string;
  jobId: string;
  abortSignal?: AbortSignal;
}

export type JobState = 'waiting' | 'active' | 'delayed' | 'completed' | 'parked' | 'missing';

export interface JobCounts {
  /** Ready to run now. */
  waiting: number;
  active: number;
  /** Waiting for a delay or a retry backoff to pass. */
  delayed: number;
  parked: number;
  /** Completed and still within the retention window. */
  completed: number;
}

export const DEFAULT_JOB_ATTEMPTS = 3;
export const DEFAULT_JOB_BACKOFF: JobBackoff = { type: 'exponential', delayMs: 1_000 };
export const DEFAULT_JOB_CLOSE_TIMEOUT_MS = 10_000;

export interface JobErrorOptions {
  message: string;
  code?: ErrorCode;
  cause?: unknown;
  retryable?: boolean;
}

/** A handler failure worth retrying (the default for anything a handler throws). */
export class JobError extends NexusError {
  constructor(options: JobErrorOptions) {
    super({
      code: options.code ?? 'internal',
      message: options.message,
      cause: options.cause,
      retryable: options.retryable ?? true,
    });
    this.name = 'JobError';
  }
}

/** Thrown by a handler when retrying cannot help: the job is parked at once with this reason. */
export class PermanentJobError extends JobError {
  constructor(options: Omit<JobErrorOptions, 'retryable'>) {
    super({ ...options, retryable: false });
    this.name = 'PermanentJobError';
  }
}

export function isPermanentJobError(error: unknown): boolean {
  return error instanceof PermanentJobError;
}
