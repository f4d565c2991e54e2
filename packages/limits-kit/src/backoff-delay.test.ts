import { describe, expect, it } from 'vitest';
import { backoffDelay } from './backoff-delay.ts';

describe('backoffDelay', () => {
  it('grows exponentially up to maxMs without jitter', () => {
    const delays = [0, 1, 2, 3, 4, 5].map((attempt) =>
      backoffDelay({ attempt, initialMs: 100, factor: 2, maxMs: 1000, jitter: 0 }),
    );
    expect(delays).toEqual([100, 200, 400, 800, 1000, 1000]);
  });

  it('full jitter spreads uniformly over [0, delay]', () => {
    expect(backoffDelay({ attempt: 2, initialMs: 100, jitter: 1, random: () => 0 })).toBe(0);
    expect(backoffDelay({ attempt: 2, initialMs: 100, jitter: 1, random: () => 0.5 })).toBe(200);
    expect(backoffDelay({ attempt: 2, initialMs: 100, jitter: 1, random: () => 0.999999 })).toBe(400);
  });

  it('partial jitter keeps a floor', () => {
    expect(backoffDelay({ attempt: 0, initialMs: 1000, jitter: 0.2, random: () => 0 })).toBe(800);
    expect(backoffDelay({ attempt: 0, initialMs: 1000, jitter: 0.2, random: () => 0.999999 })).toBe(1000);
  });

  it('uses defaults of 1 s doubling to 30 s with full jitter', () => {
    expect(backoffDelay({ attempt: 0, random: () => 0.999999 })).toBe(1000);
    expect(backoffDelay({ attempt: 40, random: () => 0.999999 })).toBe(30_000);
    for (let attempt = 0; attempt < 20; attempt += 1) {
      const delay = backoffDelay({ attempt });
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThanOrEqual(30_000);
    }
  });

  it('rejects bad input', () => {
    expect(() => backoffDelay({ attempt: -1 })).toThrow(RangeError);
    expect(() => backoffDelay({ attempt: 1.5 })).toThrow(RangeError);
    expect(() => backoffDelay({ attempt: 0, jitter: 2 })).toThrow(RangeError);
    expect(() => backoffDelay({ attempt: 0, factor: 0.5 })).toThrow(RangeError);
  });
});
