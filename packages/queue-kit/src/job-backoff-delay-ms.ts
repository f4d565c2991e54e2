import { backoffDelay } from '@nexus/limits-kit';
import type { JobBackoff } from '@nexus/protocol';

/**
 * Wait before the next run after `failures` failed runs (1 after the first failure):
 * `exponential` is delayMs, 2·delayMs, 4·delayMs… uncapped and without jitter, as BullMQ does it,
 * so both backends retry on the same schedule.
 */
export function jobBackoffDelayMs(backoff: JobBackoff, failures: number): number {
  if (backoff.type === 'fixed') return backoff.delayMs;
  const attempt = Math.max(0, failures - 1);
  return backoffDelay({ attempt, initialMs: backoff.delayMs, maxMs: Number.POSITIVE_INFINITY, jitter: 0 });
}
