export interface BackoffDelayOptions {
  /** 0 for the first retry. */
  attempt: number;
  /** Delay ceiling before jitter for attempt 0. Default 1000. */
  initialMs?: number;
  /** Cap on the un-jittered delay. Default 30000. */
  maxMs?: number;
  /** Growth per attempt. Default 2. */
  factor?: number;
  /** 0 = no jitter, 1 = full jitter (uniform in [0, delay]). Default 1. */
  jitter?: number;
  /** Source of randomness in [0, 1); injectable for tests. */
  random?: () => number;
}

/**
 * Exponential backoff with jitter, in whole milliseconds. Full jitter spreads reconnecting
 * clients apart so a platform outage does not end in a synchronised retry storm.
 */
export function backoffDelay(options: BackoffDelayOptions): number {
  const { attempt } = options;
  const initialMs = options.initialMs ?? 1000;
  const maxMs = options.maxMs ?? 30_000;
  const factor = options.factor ?? 2;
  const jitter = options.jitter ?? 1;
  const random = options.random ?? Math.random;
  if (!Number.isInteger(attempt) || attempt < 0) {
    throw new RangeError(`backoffDelay: attempt must be an integer >= 0, got ${attempt}`);
  }
  if (!(initialMs >= 0) || !(maxMs >= 0) || !(factor >= 1)) {
    throw new RangeError('backoffDelay: initialMs and maxMs must be >= 0 and factor >= 1');
  }
  if (!(jitter >= 0 && jitter <= 1))
    throw new RangeError(`backoffDelay: jitter must be in [0, 1], got ${jitter}`);
  const ceiling = Math.min(maxMs, initialMs * factor ** attempt);
  const sample = Math.min(Math.max(random(), 0), 1);
  return Math.round(ceiling * (1 - jitter) + ceiling * jitter * sample);
}
