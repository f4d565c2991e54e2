import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { keepTyping } from './keep-typing.ts';

describe('keepTyping', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sends at once and then every interval until stopped', async () => {
    let sent = 0;
    const typing = keepTyping({
      send: async () => {
        sent += 1;
      },
      intervalMs: 4000,
    });
    expect(sent).toBe(1);
    await vi.advanceTimersByTimeAsync(4000);
    expect(sent).toBe(2);
    await vi.advanceTimersByTimeAsync(8000);
    expect(sent).toBe(4);
    typing.stop();
    typing.stop();
    await vi.advanceTimersByTimeAsync(20_000);
    expect(sent).toBe(4);
  });

  it('reports failures to onError and keeps going', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const typing = keepTyping({
      send: async () => {
        calls += 1;
        throw new Error(`typing failed ${calls}`);
      },
      intervalMs: 1000,
      onError: (error) => errors.push(error),
    });
    await vi.advanceTimersByTimeAsync(2000);
    typing.stop();
    expect(calls).toBe(3);
    expect(errors.map((error) => (error as Error).message)).toEqual([
      'typing failed 1',
      'typing failed 2',
      'typing failed 3',
    ]);
  });

  it('survives a send that throws synchronously and an onError that throws', async () => {
    let calls = 0;
    const typing = keepTyping({
      send: () => {
        calls += 1;
        throw new Error('sync');
      },
      intervalMs: 1000,
      onError: () => {
        throw new Error('handler broke');
      },
    });
    await vi.advanceTimersByTimeAsync(1000);
    typing.stop();
    expect(calls).toBe(2);
  });

  it('does not pile up requests while one is still pending', async () => {
    let calls = 0;
    let release: () => void = () => {};
    const typing = keepTyping({
      send: () => {
        calls += 1;
        return new Promise<void>((resolve) => {
          release = resolve;
        });
      },
      intervalMs: 1000,
    });
    await vi.advanceTimersByTimeAsync(5000);
    expect(calls).toBe(1);
    release();
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls).toBe(2);
    typing.stop();
  });
});
