import { type ErrorCode, NexusError } from './error-codes.ts';

/**
 * Background work that must survive restarts (memory extraction, agent runs on workers).
 * Delivery is at least once: a handler may see a job again after a crash or a shutdown, so
 * handlers are idempotent. A job that keeps failing is parked, never silently dropped.
 * Implementations: the embedded SQLite queue in @nexus/core, BullMQ in @nexus/queue-bullmq.
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
const JOB_NAME_PATTERN = /^[A-Za-z0-9._-]{1,100}$/;
const MAX_JOB_ID_LENGTH = 200;

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

/** Validated enqueue options with defaults applied and the payload already serialised. */
export interface NormalisedEnqueueOptions {
  name: string;
  payloadJson: string;
  attempts: number;
  backoff: JobBackoff;
  jobId: string | undefined;
  delayMs: number;
  traceparent?: string;
}

function invalid(message: string, cause?: unknown): NexusError {
  return new NexusError({ code: 'invalid_config', message, cause });
}

export function assertJobName(name: unknown): asserts name is string {
  if (typeof name !== 'string' || !JOB_NAME_PATTERN.test(name)) {
    throw invalid(`Job name must be 1–100 letters, digits, '.', '_' or '-'; got ${JSON.stringify(name)}.`);
  }
}

function nonNegativeInteger(value: number | undefined, fallback: number, label: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 0) throw invalid(`${label} must be a non-negative integer.`);
  return value;
}

/** Shared by every JobQueue implementation so they accept and reject exactly the same input. */
export function normaliseEnqueueOptions(options: EnqueueJobOptions): NormalisedEnqueueOptions {
  assertJobName(options.name);
  const attempts = nonNegativeInteger(options.attempts, DEFAULT_JOB_ATTEMPTS, 'attempts');
  if (attempts < 1) throw invalid('attempts must be at least 1.');
  const backoff = options.backoff ?? DEFAULT_JOB_BACKOFF;
  if (backoff.type !== 'exponential' && backoff.type !== 'fixed') {
    throw invalid(`backoff.type must be 'exponential' or 'fixed'.`);
  }
  if (backoff.delayMs === undefined) throw invalid('backoff.delayMs is required.');
  nonNegativeInteger(backoff.delayMs, 0, 'backoff.delayMs');
  const jobId = options.jobId;
  if (
    jobId !== undefined &&
    (typeof jobId !== 'string' || jobId === '' || jobId.length > MAX_JOB_ID_LENGTH)
  ) {
    throw invalid(`jobId must be a non-empty string of at most ${MAX_JOB_ID_LENGTH} characters.`);
  }
  let payloadJson: string | undefined;
  try {
    payloadJson = JSON.stringify(options.payload);
  } catch (error) {
    throw invalid(`The payload of job '${options.name}' is not JSON-serialisable.`, error);
  }
  if (payloadJson === undefined)
    throw invalid(`The payload of job '${options.name}' is not JSON-serialisable.`);
  return {
    name: options.name,
    payloadJson,
    attempts,
    backoff: { type: backoff.type, delayMs: backoff.delayMs },
    jobId,
    delayMs: nonNegativeInteger(options.delayMs, 0, 'delayMs'),
    ...(typeof options.traceparent === 'string' ? { traceparent: options.traceparent } : {}),
  };
}

export function normaliseConcurrency(concurrency: number | undefined): number {
  const value = concurrency ?? 1;
  if (!Number.isInteger(value) || value < 1) throw invalid('concurrency must be a positive integer.');
  return value;
}

/** Wait before the next run after `failures` failed runs (1 after the first failure). */
export function jobBackoffDelayMs(backoff: JobBackoff, failures: number): number {
  if (backoff.type === 'fixed') return backoff.delayMs;
  return Math.round(backoff.delayMs * 2 ** Math.max(0, failures - 1));
}

/** A handler failure as the one-line reason stored with the job. */
export function jobFailureReason(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

/** How one run of a handler ended, as both queue implementations track it. */
export type JobRunOutcome = { kind: 'done' } | { kind: 'failed'; error: unknown } | { kind: 'abandoned' };

/** Runs a handler and turns its result into an outcome; a handler's failure is data, not a throw. */
export async function runJobHandler(
  handler: JobHandler,
  job: Parameters<JobHandler>[0],
): Promise<JobRunOutcome> {
  try {
    await handler(job);
    return { kind: 'done' };
  } catch (error) {
    return { kind: 'failed', error };
  }
}

/** True when `promise` settles within `timeoutMs`; used to give running handlers a close deadline. */
export async function settlesWithin(promise: Promise<unknown>, timeoutMs: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([promise.then(() => true), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
