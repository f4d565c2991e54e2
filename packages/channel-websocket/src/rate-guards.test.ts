import { TokenBucket } from '@nexus/channel-kit';
import { describe, expect, it } from 'vitest';
import { FrameFloodGuard } from './frame-flood-guard.ts';
import { MessageRateGuard } from './message-rate-guard.ts';

describe('TokenBucket', () => {
  it('allows a burst of capacity, then refills at the given rate', () => {
    let clock = 0;
    const bucket = new TokenBucket({ capacity: 2, refillPerMs: 1 / 1000, now: () => clock });
    expect([bucket.take(), bucket.take(), bucket.take()]).toEqual([true, true, false]);
    clock += 999;
    expect(bucket.take()).toBe(false);
    clock += 1;
    expect(bucket.take()).toBe(true);
    clock += 1_000_000;
    expect([bucket.take(), bucket.take(), bucket.take()]).toEqual([true, true, false]);
  });
});

describe('MessageRateGuard', () => {
  it('rejects over the rate and closes after ten times the rate in refusals within a minute', () => {
    let clock = 0;
    const guard = new MessageRateGuard({ messagesPerMinute: 2, now: () => clock });
    const verdicts = Array.from({ length: 22 }, () => guard.check());
    expect(verdicts.slice(0, 2)).toEqual(['accept', 'accept']);
    expect(verdicts.slice(2, 21).every((verdict) => verdict === 'reject')).toBe(true);
    expect(verdicts[21]).toBe('close');
    clock += 60_000;
    expect(guard.check()).toBe('accept');
  });
});

describe('FrameFloodGuard', () => {
  it('drops frames beyond the per-second limit and forgives after clean seconds', () => {
    let clock = 0;
    const guard = new FrameFloodGuard({ maxFramesPerSecond: 3, now: () => clock });
    const first = Array.from({ length: 5 }, () => guard.check());
    expect(first).toEqual(['process', 'process', 'process', 'drop', 'drop']);
    clock += 1000;
    Array.from({ length: 4 }, () => guard.check()); // second overflowing second
    clock += 5000; // clean seconds forgive both strikes
    Array.from({ length: 4 }, () => guard.check());
    clock += 1000;
    expect(Array.from({ length: 4 }, () => guard.check()).at(-1)).toBe('drop');
  });

  it('closes on the third overflowing second in a row', () => {
    let clock = 0;
    const guard = new FrameFloodGuard({ maxFramesPerSecond: 3, now: () => clock });
    const lastOfSecond = () => Array.from({ length: 4 }, () => guard.check()).at(-1);
    expect(lastOfSecond()).toBe('drop');
    clock += 1000;
    expect(lastOfSecond()).toBe('drop');
    clock += 1000;
    expect(lastOfSecond()).toBe('close');
  });

  it('closes within one second when the flood is ten times the limit', () => {
    const guard = new FrameFloodGuard({ maxFramesPerSecond: 3, now: () => 0 });
    const verdicts = Array.from({ length: 31 }, () => guard.check());
    expect(verdicts.at(-2)).toBe('drop');
    expect(verdicts.at(-1)).toBe('close');
  });
});
