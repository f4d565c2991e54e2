import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Background model work (memory extraction, conversation summaries) in the process that runs the
 * turns steps aside while turns wait for a turn slot: it shares the CPU (two cores, often) and
 * the model's rate limit with the replies people are waiting for, and nobody waits for it.
 *
 * It waits at most `maxWaitMs` per job, so under a long overload background work is delayed,
 * never starved; meanwhile its job stays leased and durable, as while it runs.
 */
export interface RepliesFirst {
  /** Turns waiting for a turn slot now (`NexusCore.stats().turnsWaitingForSlot`). */
  turnsWaiting: () => number;
  /** Longest wait before the work runs anyway. Default 10 s. */
  maxWaitMs?: number;
  /** How often the wait looks again. Default 50 ms. */
  checkEveryMs?: number;
}

const DEFAULT_MAX_WAIT_MS = 10_000;

/**
 * Resolves once no turn waits for a slot, or `maxWaitMs` has passed, or `signal` aborts (the job
 * then sees the abort in its own work), with the milliseconds it waited.
 */
export async function waitWhileRepliesQueue(
  gate: RepliesFirst | undefined,
  signal?: AbortSignal,
): Promise<number> {
  if (!gate || gate.turnsWaiting() === 0 || signal?.aborted) return 0;
  const startedAt = performance.now();
  const deadline = startedAt + (gate.maxWaitMs ?? DEFAULT_MAX_WAIT_MS);
  const checkEveryMs = gate.checkEveryMs ?? 50;
  while (gate.turnsWaiting() > 0 && !signal?.aborted) {
    const left = deadline - performance.now();
    if (left <= 0) break;
    // An abort ends the wait early (and rejects, which is no error here).
    await sleep(Math.min(checkEveryMs, left), undefined, signal ? { signal } : {}).catch(() => {});
  }
  return Math.round(performance.now() - startedAt);
}
