import type { JobBackoff } from '@nexus/protocol';

/** Wait before the next run after `failures` failed runs (1 after the first failure). */
export function jobBackoffDelayMs(backoff: JobBackoff, failures: number): number {
  if (backoff.type === 'fixed') return backoff.delayMs;
  return Math.round(backoff.delayMs * 2 ** Math.max(0, failures - 1));
}
