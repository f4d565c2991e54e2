import {
  DEFAULT_JOB_ATTEMPTS,
  DEFAULT_JOB_BACKOFF,
  type EnqueueJobOptions,
  type JobBackoff,
  NexusError,
} from '@nexus/protocol';

const JOB_NAME_PATTERN = /^[A-Za-z0-9._-]{1,100}$/;

/**
 * Bytes of JSON one job's payload may hold unless the queue is given another cap. Jobs carry
 * references, never file bytes: a job in Redis is kept in memory, so the cap (times the jobs that
 * may exist at once) is what a deployment sizes Redis by (docs/job-queue.md).
 */
export const DEFAULT_MAX_JOB_PAYLOAD_BYTES = 1024 * 1024;
const MAX_JOB_ID_LENGTH = 200;

/** Validated enqueue options with defaults applied and the payload already serialised. */
export interface NormalisedEnqueueOptions {
  name: string;
  payloadJson: string;
  attempts: number;
  backoff: JobBackoff;
  jobId: string | undefined;
  delayMs: number;
  /** Set for a debounced enqueue (then `jobId` is undefined and `delayMs` positive). */
  debounceKey?: string;
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

/**
 * Shared by every JobQueue implementation so they accept and reject exactly the same input. A
 * payload over `maxPayloadBytes` (UTF-8 bytes of its JSON) is refused with `payload_too_large`.
 */
export function normaliseEnqueueOptions(
  options: EnqueueJobOptions,
  maxPayloadBytes = DEFAULT_MAX_JOB_PAYLOAD_BYTES,
): NormalisedEnqueueOptions {
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
  const debounceKey = options.debounceKey;
  if (debounceKey !== undefined) {
    if (typeof debounceKey !== 'string' || debounceKey === '' || debounceKey.length > MAX_JOB_ID_LENGTH) {
      throw invalid(`debounceKey must be a non-empty string of at most ${MAX_JOB_ID_LENGTH} characters.`);
    }
    if (jobId !== undefined) throw invalid('A debounced job gets its id from the queue: pass no jobId.');
    if (!(typeof options.delayMs === 'number' && options.delayMs > 0)) {
      throw invalid('A debounced job needs a positive delayMs (the quiet period).');
    }
  }
  let payloadJson: string | undefined;
  try {
    payloadJson = JSON.stringify(options.payload);
  } catch (error) {
    throw invalid(`The payload of job '${options.name}' is not JSON-serialisable.`, error);
  }
  if (payloadJson === undefined)
    throw invalid(`The payload of job '${options.name}' is not JSON-serialisable.`);
  // Characters never exceed bytes, so only a long payload pays for counting its bytes.
  const payloadBytes = payloadJson.length > maxPayloadBytes / 3 ? Buffer.byteLength(payloadJson) : 0;
  if (payloadBytes > maxPayloadBytes)
    throw new NexusError({
      code: 'payload_too_large',
      message: `The payload of job '${options.name}' is ${payloadBytes} bytes of JSON, over the queue's cap of ${maxPayloadBytes}. Jobs carry references, not file contents.`,
    });
  return {
    name: options.name,
    payloadJson,
    attempts,
    backoff: { type: backoff.type, delayMs: backoff.delayMs },
    jobId,
    delayMs: nonNegativeInteger(options.delayMs, 0, 'delayMs'),
    ...(debounceKey !== undefined ? { debounceKey } : {}),
    ...(typeof options.traceparent === 'string' ? { traceparent: options.traceparent } : {}),
  };
}

export function normaliseConcurrency(concurrency: number | undefined): number {
  const value = concurrency ?? 1;
  if (!Number.isInteger(value) || value < 1) throw invalid('concurrency must be a positive integer.');
  return value;
}
