import { describe, expect, it } from 'vitest';
import { backoffDelay } from './backoff.ts';

describe('backoffDelay', () => {
  it('doubles from 0.5 s to a 10 s ceiling', () => {
    const middle = () => 0.5;
    expect([0, 1, 2, 3, 4, 5, 10].map((attempt) => backoffDelay(attempt, {}, middle))).toEqual([
      500, 1000, 2000, 4000, 8000, 10_000, 10_000,
    ]);
  });

  it('spreads clients by ±20 % without exceeding the ceiling', () => {
    expect(backoffDelay(0, {}, () => 0)).toBe(400);
    expect(backoffDelay(0, {}, () => 1)).toBe(600);
    expect(backoffDelay(8, {}, () => 1)).toBe(10_000);
    expect(backoffDelay(1_000, { initialMs: 100, maxMs: 300 }, () => 0)).toBe(240);
  });
});
