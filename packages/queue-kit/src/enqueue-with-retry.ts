import {
  type EnqueueJobOptions,
  type EnqueueJobResult,
  type JobQueue,
  type Logger,
  NexusError,
  silentLogger,
} from '@nexus/protocol';

export interface EnqueueRetryOptions {
  /** Epoch ms after which a queue still unreachable is given up on with `queue_unavailable`. */
  deadlineAt: number;
  /** Called once, at the first failed try, so the caller can tell the person it is waiting. */
  onWaiting?: (error: unknown) => void;
  /** First pause between tries; it doubles up to `maxDelayMs`. */
  initialDelayMs?: number;
  maxDelayMs?: number;
  now?: () => number;
  logger?: Logger;
}

/**
 * Enqueues, and while the queue cannot be reached (a retryable failure: Redis down, restarting,
 * frozen) tries again with backoff until `deadlineAt`. A try still hanging at the deadline (a
 * frozen Redis holds the command) counts as a failure; if it lands later the job id keeps it one.
 * Non-retryable errors (bad input, a closed queue) are thrown at once.
 */
export async function enqueueWithRetry(
  queue: JobQueue,
  enqueueOptions: EnqueueJobOptions,
  retry: EnqueueRetryOptions,
): Promise<EnqueueJobResult> {
  const now = retry.now ?? Date.now;
  const logger = retry.logger ?? silentLogger;
  const signal = enqueueOptions.abortSignal;
  let delayMs = retry.initialDelayMs ?? 250;
  let failures = 0;
  let firstFailureAt = 0;
  for (;;) {
    signal?.throwIfAborted();
    const remainingMs = retry.deadlineAt - now();
    let error: unknown;
    try {
      const result = await withinDeadline(queue.enqueue(enqueueOptions), remainingMs);
      if (failures > 0)
        logger.info({ jobName: enqueueOptions.name, failures }, 'job queue reachable again; job enqueued');
      return result;
    } catch (caught) {
      error = caught;
    }
    if (!isRetryable(error) || signal?.aborted) throw error;
    failures++;
    if (failures === 1) {
      firstFailureAt = now();
      logger.warn({ err: error, jobName: enqueueOptions.name }, 'job queue unreachable; waiting for it');
      retry.onWaiting?.(error);
    }
    if (now() + delayMs >= retry.deadlineAt) {
      throw new NexusError({
        code: 'queue_unavailable',
        retryable: true,
        message: `The job queue stayed unreachable for ${Math.round((now() - firstFailureAt) / 1000)} s; the message is kept and will be answered after a restart, or can be sent again.`,
        cause: error,
      });
    }
    await pause(delayMs, signal);
    delayMs = Math.min(delayMs * 2, retry.maxDelayMs ?? 5000);
  }
}

function isRetryable(error: unknown): boolean {
  return error instanceof NexusError ? error.retryable : error instanceof EnqueueStillPending;
}

class EnqueueStillPending extends Error {}

function withinDeadline<T>(operation: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new EnqueueStillPending('enqueue still pending')),
      Math.max(0, timeoutMs),
    );
  });
  // The losing enqueue may still settle later; its outcome is not needed any more.
  operation.catch(() => undefined);
  return Promise.race([operation, late]).finally(() => clearTimeout(timer));
}

function pause(delayMs: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(done, delayMs);
    function done() {
      signal?.removeEventListener('abort', aborted);
      resolve();
    }
    function aborted() {
      clearTimeout(timer);
      reject(signal?.reason);
    }
    signal?.addEventListener('abort', aborted, { once: true });
  });
}
