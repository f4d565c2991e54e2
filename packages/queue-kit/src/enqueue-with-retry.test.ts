import { type EnqueueJobResult, type JobQueue, NexusError } from '@nexus/protocol';
import { describe, expect, it } from 'vitest';
import { enqueueWithRetry } from './enqueue-with-retry.ts';

// The retry logic alone, on a queue whose `enqueue` answers as scripted: the real failures (Redis
// SIGKILLed, frozen, restarted empty) are exercised in tests/stack/redis-faults.int.test.ts.

const unreachable = () =>
  new NexusError({ code: 'internal', retryable: true, message: 'Could not enqueue a job on Redis' });

function scriptedQueue(answers: (() => Promise<EnqueueJobResult>)[]): JobQueue & { tries: number } {
  const queue = {
    tries: 0,
    enqueue: () => {
      const answer = answers[Math.min(queue.tries, answers.length - 1)]!;
      queue.tries++;
      return answer();
    },
  };
  return queue as unknown as JobQueue & { tries: number };
}

const job = { name: 'agent.run', payload: {}, jobId: 'turn-1' };
const stored = async () => ({ jobId: 'turn-1', deduplicated: false });

describe('enqueueWithRetry', () => {
  it('waits out an unreachable queue with backoff and says once that it waits', async () => {
    const queue = scriptedQueue([
      () => Promise.reject(unreachable()),
      () => Promise.reject(unreachable()),
      stored,
    ]);
    let waited = 0;
    const result = await enqueueWithRetry(queue, job, {
      deadlineAt: Date.now() + 5000,
      initialDelayMs: 5,
      onWaiting: () => waited++,
    });
    expect(result).toEqual({ jobId: 'turn-1', deduplicated: false });
    expect(queue.tries).toBe(3);
    expect(waited).toBe(1);
  });

  it('throws a non-retryable error at once', async () => {
    const refused = new NexusError({ code: 'invalid_intent', message: 'bad payload' });
    const queue = scriptedQueue([() => Promise.reject(refused)]);
    await expect(enqueueWithRetry(queue, job, { deadlineAt: Date.now() + 5000 })).rejects.toBe(refused);
    expect(queue.tries).toBe(1);
  });

  it('gives up at the deadline with a retryable queue_unavailable carrying the last failure', async () => {
    const queue = scriptedQueue([() => Promise.reject(unreachable())]);
    const failure = await enqueueWithRetry(queue, job, {
      deadlineAt: Date.now() + 100,
      initialDelayMs: 5,
      maxDelayMs: 20,
    }).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'queue_unavailable', retryable: true });
    expect((failure as NexusError).cause).toBeInstanceOf(NexusError);
    expect(queue.tries).toBeGreaterThan(2);
  });

  it('counts an enqueue still hanging at the deadline (a frozen Redis) as unreachable', async () => {
    const queue = scriptedQueue([() => new Promise<never>(() => undefined)]);
    const failure = await enqueueWithRetry(queue, job, { deadlineAt: Date.now() + 50 }).catch(
      (error: unknown) => error,
    );
    expect(failure).toMatchObject({ code: 'queue_unavailable', retryable: true });
  });

  it('stops waiting when the caller aborts', async () => {
    const queue = scriptedQueue([() => Promise.reject(unreachable())]);
    const controller = new AbortController();
    const reason = new Error('turn abandoned');
    setTimeout(() => controller.abort(reason), 30);
    await expect(
      enqueueWithRetry(
        queue,
        { ...job, abortSignal: controller.signal },
        { deadlineAt: Date.now() + 5000, initialDelayMs: 10, maxDelayMs: 10 },
      ),
    ).rejects.toBe(reason);
  });
});
