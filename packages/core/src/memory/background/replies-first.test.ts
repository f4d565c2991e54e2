import { describe, expect, it } from 'vitest';
import { waitWhileRepliesQueue } from './replies-first.ts';

describe('waitWhileRepliesQueue', () => {
  it('does not wait without a gate or when no turn waits for a slot', async () => {
    expect(await waitWhileRepliesQueue(undefined)).toBe(0);
    expect(await waitWhileRepliesQueue({ turnsWaiting: () => 0 })).toBe(0);
  });

  it('waits until no turn waits for a slot', async () => {
    let waiting = 3;
    setTimeout(() => {
      waiting = 0;
    }, 60);
    const waited = await waitWhileRepliesQueue({ turnsWaiting: () => waiting, checkEveryMs: 5 });
    expect(waited).toBeGreaterThanOrEqual(55);
    expect(waited).toBeLessThan(5_000);
  });

  it('ends the wait when the job is aborted (shutdown)', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    const waited = await waitWhileRepliesQueue(
      { turnsWaiting: () => 1, maxWaitMs: 60_000, checkEveryMs: 10_000 },
      controller.signal,
    );
    expect(waited).toBeLessThan(5_000);
  });
});
