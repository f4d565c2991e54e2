import { describe, expect, it } from 'vitest';
import { KeyedSerialQueue } from './keyed-serial-queue.ts';
import { QueueFullError } from './queue-full-error.ts';

function deferred<T = void>() {
  let resolve: (value: T) => void = () => {};
  let reject: (error: unknown) => void = () => {};
  const promise = new Promise<T>((onResolve, onReject) => {
    resolve = onResolve;
    reject = onReject;
  });
  return { promise, resolve, reject };
}

describe('KeyedSerialQueue', () => {
  it('runs tasks of one key in order, one at a time', async () => {
    const queue = new KeyedSerialQueue();
    const log: string[] = [];
    const first = deferred();
    const a = queue.run('chat:1', async () => {
      log.push('a:start');
      await first.promise;
      log.push('a:end');
      return 'a';
    });
    const b = queue.run('chat:1', async () => {
      log.push('b:start');
      return 'b';
    });
    await Promise.resolve();
    await Promise.resolve();
    expect(log).toEqual(['a:start']);
    expect(queue.size).toBe(2);
    first.resolve();
    expect(await a).toBe('a');
    expect(await b).toBe('b');
    expect(log).toEqual(['a:start', 'a:end', 'b:start']);
    expect(queue.size).toBe(0);
  });

  it('runs different keys concurrently', async () => {
    const queue = new KeyedSerialQueue();
    const gate = deferred();
    const started: string[] = [];
    const one = queue.run('chat:1', async () => {
      started.push('1');
      await gate.promise;
    });
    const two = queue.run('chat:2', async () => {
      started.push('2');
    });
    await two;
    expect(started).toEqual(['1', '2']);
    gate.resolve();
    await one;
  });

  it('keeps the lane going after a task fails', async () => {
    const queue = new KeyedSerialQueue();
    const failing = queue.run('k', async () => {
      throw new Error('boom');
    });
    const next = queue.run('k', async () => 42);
    await expect(failing).rejects.toThrow('boom');
    expect(await next).toBe(42);
    expect(queue.size).toBe(0);
  });

  it('rejects with QueueFullError beyond maxQueued waiting tasks, without running the task', async () => {
    const queue = new KeyedSerialQueue({ maxQueued: 1 });
    const gate = deferred();
    let ran = 0;
    const running = queue.run('k', async () => {
      ran += 1;
      await gate.promise;
    });
    const waiting = queue.run('k', async () => {
      ran += 1;
    });
    const rejected = queue.run('k', async () => {
      ran += 1;
    });
    await expect(rejected).rejects.toBeInstanceOf(QueueFullError);
    await expect(rejected).rejects.toMatchObject({ code: 'rate_limited', retryable: true, key: 'k' });
    expect(await queue.run('other', async () => 'free')).toBe('free');
    gate.resolve();
    await running;
    await waiting;
    expect(ran).toBe(2);
    await queue.run('k', async () => {
      ran += 1;
    });
    expect(ran).toBe(3);
  });
});
