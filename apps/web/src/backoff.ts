export interface BackoffOptions {
  /** Delay before the first retry. Default 500 ms. */
  initialMs?: number;
  /** Ceiling of the delay. Default 10 s. */
  maxMs?: number;
}

/**
 * Delay before reconnect attempt `attempt` (0-based): doubling from `initialMs` up to `maxMs`,
 * with ±20 % jitter so that clients dropped together by a restart do not return together.
 */
export function backoffDelay(attempt: number, options: BackoffOptions, random: () => number): number {
  const initialMs = options.initialMs ?? 500;
  const maxMs = options.maxMs ?? 10_000;
  const ceiling = Math.min(maxMs, initialMs * 2 ** Math.min(attempt, 30));
  return Math.round(Math.min(maxMs, ceiling * (0.8 + 0.4 * random())));
}
