import { describe, expect, it } from 'vitest';
import { settleWithin } from './settle-within.ts';

const after = <T>(ms: number, value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

describe('settleWithin', () => {
  it('answers each work in its own slot once all have settled, before the deadline', async () => {
    const started = performance.now();
    const [fast, absent, slower, plain] = await settleWithin(
      [() => after(5, 'a'), undefined, () => after(20, 2), () => 'plain'],
      5_000,
    );
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(fast).toMatchObject({ status: 'ok', value: 'a' });
    expect(absent).toBeUndefined();
    expect(slower).toMatchObject({ status: 'ok', value: 2 });
    expect(plain).toMatchObject({ status: 'ok', value: 'plain' });
    expect(slower!.settledAt).toBeGreaterThan(fast!.settledAt);
  });

  it('keeps the error of a work that rejects or throws at once, and still waits for the others', async () => {
    const failure = new Error('store unavailable');
    const [rejects, throws, later] = await settleWithin(
      [
        () => Promise.reject(failure),
        () => {
          throw new TypeError('no connection');
        },
        () => after(15, 'found'),
      ],
      5_000,
    );
    expect(rejects).toMatchObject({ status: 'error', error: failure });
    expect(throws?.status).toBe('error');
    expect(throws?.status === 'error' && throws.error).toBeInstanceOf(TypeError);
    expect(later).toMatchObject({ status: 'ok', value: 'found' });
  });

  it('marks every work still open at the deadline as timed out and ignores what it answers later', async () => {
    let lateAnswered = false;
    const started = performance.now();
    const slots = await settleWithin(
      [
        () => after(1, 'in time'),
        () =>
          after(80, 'late').then((value) => {
            lateAnswered = true;
            return value;
          }),
        () => new Promise(() => {}),
      ],
      30,
    );
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
    expect(slots[0]).toMatchObject({ status: 'ok', value: 'in time' });
    expect(slots[1]).toMatchObject({ status: 'timeout' });
    expect(slots[2]).toMatchObject({ status: 'timeout' });
    await after(100, undefined);
    expect(lateAnswered).toBe(true);
    expect(slots[1]).toMatchObject({ status: 'timeout' });
  });

  it('answers at once when there is no work', async () => {
    expect(await settleWithin([undefined, undefined], 10_000)).toEqual([undefined, undefined]);
  });
});
