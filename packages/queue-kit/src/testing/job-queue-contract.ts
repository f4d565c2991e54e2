import { randomBytes } from 'node:crypto';
import { type ActiveJob, type JobQueue, NexusError, PermanentJobError } from '@nexus/protocol';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_JOB_PAYLOAD_BYTES } from '../normalise-enqueue-options.ts';
import { describeJobQueueDebounceContract } from './job-queue-debounce-contract.ts';
import {
  type JobQueueWorkerModule,
  type SpawnedJobQueueWorker,
  spawnJobQueueWorker,
} from './spawn-job-queue-worker.ts';
import { sleep, waitFor } from './wait-for.ts';

export interface JobQueueContractOptions {
  name: string;
  /** Opens a queue on the suite's storage; every call sees the same jobs (close, then reopen). */
  create: () => Promise<JobQueue>;
  /** Runs once after the suite, e.g. to delete the storage. */
  cleanup?: () => Promise<void>;
  /** Opens the same storage in a child process, for the crashed-worker case. */
  worker?: JobQueueWorkerModule;
  /** How long a crashed worker's job may take to become visible again. Default 15 s. */
  recoveryTimeoutMs?: number;
  /** A handler duration several times the lease (lock) `create()` configures. Default 2 s. */
  longRunningMs?: number;
}

/** Longer than any poll interval: a job that would run twice shows up within it. */
const SETTLE_MS = 400;

/**
 * The behaviour every JobQueue must show: once-only processing, retries with backoff, parking
 * with the reason, permanent errors, jobId de-duplication, the concurrency limit, FIFO order,
 * durability across close/reopen, recovery of a crashed worker's job, and shutdown that aborts
 * running handlers and hands their jobs back. Each case uses its own job name, so cases share
 * the storage `create()` opens without seeing each other's jobs.
 */
export function describeJobQueueContract(options: JobQueueContractOptions): void {
  describe(`JobQueue contract: ${options.name}`, () => {
    const opened: JobQueue[] = [];
    const workers: SpawnedJobQueueWorker[] = [];
    const runId = randomBytes(3).toString('hex');
    let caseNumber = 0;

    async function create(): Promise<JobQueue> {
      const queue = await options.create();
      opened.push(queue);
      return queue;
    }
    function uniqueName(label: string): string {
      caseNumber += 1;
      return `contract.${runId}.${caseNumber}.${label}`;
    }
    const countsOf = async (queue: JobQueue, name: string) => queue.counts({ name });
    const completed = (queue: JobQueue, name: string, count: number) =>
      waitFor(async () => (await countsOf(queue, name)).completed === count, {
        description: `${count} completed job(s) of ${name}`,
      });

    afterEach(async () => {
      await Promise.all(workers.splice(0).map((worker) => worker.kill()));
      await Promise.all(opened.splice(0).map((queue) => queue.close({ timeoutMs: 0 })));
    });
    afterAll(async () => {
      await options.cleanup?.();
    });

    describeJobQueueDebounceContract({ name: options.name, create: options.create });

    it('processes a job once', async () => {
      const queue = await create();
      const name = uniqueName('once');
      const payload = { text: 'I live in Lisbon', tags: ['a', 'b'], count: 2 };
      const result = await queue.enqueue({ name, payload });
      expect(result).toEqual({ jobId: expect.any(String), deduplicated: false });
      expect(await countsOf(queue, name)).toEqual({
        waiting: 1,
        active: 0,
        delayed: 0,
        parked: 0,
        completed: 0,
      });
      const seen: ActiveJob[] = [];
      queue.process({ name, handler: async (job) => void seen.push(job) });
      await completed(queue, name, 1);
      await sleep(SETTLE_MS);
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatchObject({ id: result.jobId, name, payload, attempt: 1 });
      expect(seen[0]?.abortSignal.aborted).toBe(false);
      expect(await countsOf(queue, name)).toEqual({
        waiting: 0,
        active: 0,
        delayed: 0,
        parked: 0,
        completed: 1,
      });
    });

    it('holds a delayed job until its delay has passed', async () => {
      const queue = await create();
      const name = uniqueName('delayed');
      const enqueuedAt = Date.now();
      await queue.enqueue({ name, payload: { when: 'later' }, delayMs: 500 });
      expect(await countsOf(queue, name)).toMatchObject({ waiting: 0, delayed: 1 });
      let startedAt = 0;
      queue.process({
        name,
        handler: async () => {
          startedAt = Date.now();
        },
      });
      await completed(queue, name, 1);
      expect(startedAt - enqueuedAt).toBeGreaterThanOrEqual(480);
    });

    it('retries a failing job with backoff, then succeeds', async () => {
      const queue = await create();
      const name = uniqueName('retry');
      const runs: { attempt: number; at: number }[] = [];
      await queue.enqueue({ name, payload: {}, attempts: 3, backoff: { type: 'exponential', delayMs: 100 } });
      queue.process({
        name,
        handler: async (job) => {
          runs.push({ attempt: job.attempt, at: Date.now() });
          if (runs.length < 3) throw new Error(`transient failure ${runs.length}`);
        },
      });
      await completed(queue, name, 1);
      expect(runs.map((run) => run.attempt)).toEqual([1, 2, 3]);
      const [first, second, third] = runs.map((run) => run.at) as [number, number, number];
      expect(second - first).toBeGreaterThanOrEqual(95);
      expect(third - second).toBeGreaterThanOrEqual(190);
      expect(await countsOf(queue, name)).toMatchObject({ parked: 0, completed: 1, delayed: 0 });
    });

    it('parks a job after its last attempt with the reason; retryParked runs it again', async () => {
      const queue = await create();
      const name = uniqueName('park');
      const payload = { userId: 'ada' };
      let calls = 0;
      let healthy = false;
      const before = Date.now();
      const { jobId } = await queue.enqueue({
        name,
        payload,
        attempts: 2,
        backoff: { type: 'fixed', delayMs: 50 },
      });
      queue.process({
        name,
        handler: async () => {
          calls += 1;
          if (!healthy) throw new Error('the model said no');
        },
      });
      await waitFor(async () => (await countsOf(queue, name)).parked === 1, { description: 'a parked job' });
      await sleep(SETTLE_MS);
      expect(calls).toBe(2);
      expect(await countsOf(queue, name)).toEqual({
        waiting: 0,
        active: 0,
        delayed: 0,
        parked: 1,
        completed: 0,
      });
      const parked = await queue.parked({ name });
      expect(parked).toEqual([
        {
          id: jobId,
          name,
          payload,
          attempts: 2,
          reason: expect.stringContaining('the model said no'),
          failedAt: expect.any(Number),
        },
      ]);
      expect(parked[0]!.failedAt).toBeGreaterThanOrEqual(before);
      expect(parked[0]!.failedAt).toBeLessThanOrEqual(Date.now());
      expect((await queue.parked()).some((job) => job.id === jobId && job.name === name)).toBe(true);

      healthy = true;
      expect(await queue.retryParked({ jobId })).toEqual({ retried: true });
      await completed(queue, name, 1);
      expect(calls).toBe(3);
      expect(await queue.parked({ name })).toEqual([]);
      expect(await queue.retryParked({ jobId })).toEqual({ retried: false });
      expect(await queue.retryParked({ jobId: 'no-such-job' })).toEqual({ retried: false });
    });

    it('parks at once when the handler throws PermanentJobError', async () => {
      const queue = await create();
      const name = uniqueName('permanent');
      let calls = 0;
      const { jobId } = await queue.enqueue({ name, payload: { broken: true }, attempts: 5 });
      queue.process({
        name,
        handler: async () => {
          calls += 1;
          throw new PermanentJobError({ message: 'payload is missing userId' });
        },
      });
      await waitFor(async () => (await countsOf(queue, name)).parked === 1, { description: 'a parked job' });
      await sleep(SETTLE_MS);
      expect(calls).toBe(1);
      const [parked] = await queue.parked({ name });
      expect(parked).toMatchObject({
        id: jobId,
        attempts: 1,
        reason: expect.stringContaining('missing userId'),
      });
    });

    it('purgePayloads deletes every resting job naming a value, in any state, and nothing else', async () => {
      const queue = await create();
      const name = uniqueName('purge');
      const idle = uniqueName('purge-idle');
      const person = `person-${runId}`;
      const enqueue = (queueName: string, payload: unknown, delayMs?: number) =>
        queue.enqueue({ name: queueName, payload, attempts: 1, ...(delayMs ? { delayMs } : {}) });
      const parked = await enqueue(name, { userId: person, fail: true });
      const done = await enqueue(name, { userId: person });
      await enqueue(name, { userId: 'someone-else' });
      queue.process({
        name,
        handler: async (job) => {
          if ((job.payload as { fail?: boolean }).fail) throw new PermanentJobError({ message: 'bad' });
        },
      });
      await waitFor(
        async () => {
          const counts = await countsOf(queue, name);
          return counts.parked === 1 && counts.completed === 2;
        },
        { description: 'one parked and two completed jobs' },
      );
      const delayed = await enqueue(name, { userId: person }, 60_000);
      const nested = await enqueue(idle, { turn: { speakers: ['x', person] } });
      await enqueue(idle, { userId: `${person}-2`, note: `mentions ${person} inside a longer text` });

      const result = await queue.purgePayloads?.({ values: [person] });
      expect(result).toEqual({
        removed: 4,
        running: 0,
        jobIds: expect.arrayContaining([parked.jobId, done.jobId, delayed.jobId, nested.jobId]),
      });
      expect(await countsOf(queue, name)).toEqual({
        waiting: 0,
        active: 0,
        delayed: 0,
        parked: 0,
        completed: 1,
      });
      expect((await countsOf(queue, idle)).waiting).toBe(1);
      expect(await queue.parked({ name })).toEqual([]);
      expect(await queue.purgePayloads?.({ values: [person] })).toEqual({
        removed: 0,
        running: 0,
        jobIds: [],
      });
    });

    it('de-duplicates by jobId within a name', async () => {
      const queue = await create();
      const name = uniqueName('dedupe');
      const jobId = 'turn:42';
      expect(await queue.enqueue({ name, payload: { copy: 1 }, jobId })).toEqual({
        jobId,
        deduplicated: false,
      });
      expect(await queue.enqueue({ name, payload: { copy: 2 }, jobId })).toEqual({
        jobId,
        deduplicated: true,
      });
      expect(await queue.enqueue({ name, payload: { copy: 3 }, jobId: '7' })).toEqual({
        jobId: '7',
        deduplicated: false,
      });
      const otherName = uniqueName('dedupe-other');
      expect(await queue.enqueue({ name: otherName, payload: {}, jobId })).toEqual({
        jobId,
        deduplicated: false,
      });
      expect(await countsOf(queue, name)).toMatchObject({ waiting: 2 });
      const seen: ActiveJob[] = [];
      queue.process({ name, handler: async (job) => void seen.push(job) });
      await completed(queue, name, 2);
      expect(await queue.enqueue({ name, payload: { copy: 4 }, jobId })).toEqual({
        jobId,
        deduplicated: true,
      });
      await sleep(SETTLE_MS);
      expect(seen.map((job) => [job.id, job.payload])).toEqual([
        [jobId, { copy: 1 }],
        ['7', { copy: 3 }],
      ]);
    });

    it('never runs more than `concurrency` handlers at once', async () => {
      const queue = await create();
      const name = uniqueName('concurrency');
      for (let index = 0; index < 9; index += 1) await queue.enqueue({ name, payload: { index } });
      let running = 0;
      let peak = 0;
      queue.process({
        name,
        concurrency: 3,
        handler: async () => {
          running += 1;
          peak = Math.max(peak, running);
          await sleep(150);
          running -= 1;
        },
      });
      await completed(queue, name, 9);
      expect(peak).toBe(3);
    });

    it('runs jobs in enqueue order with one worker at concurrency 1', async () => {
      const queue = await create();
      const name = uniqueName('fifo');
      for (let index = 0; index < 10; index += 1) await queue.enqueue({ name, payload: { index } });
      const order: number[] = [];
      queue.process({
        name,
        handler: async (job) => void order.push((job.payload as { index: number }).index),
      });
      await completed(queue, name, 10);
      expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    });

    it('keeps jobs across close and reopen', async () => {
      const first = await create();
      const name = uniqueName('durable');
      const ids: string[] = [];
      for (const step of ['a', 'b', 'c']) ids.push((await first.enqueue({ name, payload: { step } })).jobId);
      await first.close();
      const second = await create();
      expect(await countsOf(second, name)).toMatchObject({ waiting: 3, completed: 0 });
      const seen: ActiveJob[] = [];
      second.process({ name, handler: async (job) => void seen.push(job) });
      await completed(second, name, 3);
      expect(seen.map((job) => [job.id, job.payload])).toEqual([
        [ids[0], { step: 'a' }],
        [ids[1], { step: 'b' }],
        [ids[2], { step: 'c' }],
      ]);
    });

    it("hands the enqueuer's traceparent to the handler, across close and reopen", async () => {
      const first = await create();
      const name = uniqueName('traceparent');
      const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
      const traced = await first.enqueue({ name, payload: { step: 'traced' }, traceparent });
      const plain = await first.enqueue({ name, payload: { step: 'plain' } });
      await first.close();
      const second = await create();
      const seen: ActiveJob[] = [];
      second.process({ name, handler: async (job) => void seen.push(job) });
      await completed(second, name, 2);
      expect(seen.map((job) => [job.id, job.traceparent])).toEqual([
        [traced.jobId, traceparent],
        [plain.jobId, undefined],
      ]);
    });

    it('runs the job of a crashed (SIGKILLed) worker again', async () => {
      if (!options.worker)
        throw new Error('Pass `worker`: the crashed-worker case opens the queue in a child process.');
      const queue = await create();
      const name = uniqueName('crash');
      const payload = { turn: 'I moved to Berlin' };
      const { jobId } = await queue.enqueue({ name, payload, attempts: 3 });
      const worker = spawnJobQueueWorker({ ...options.worker, name });
      workers.push(worker);
      expect(await worker.started).toEqual({ jobId, attempt: 1 });
      expect(await countsOf(queue, name)).toMatchObject({ active: 1, waiting: 0 });
      await worker.kill();
      const seen: ActiveJob[] = [];
      queue.process({ name, handler: async (job) => void seen.push(job) });
      await waitFor(async () => (await countsOf(queue, name)).completed === 1, {
        description: 'the crashed worker’s job to complete elsewhere',
        timeoutMs: options.recoveryTimeoutMs ?? 15_000,
      });
      await sleep(SETTLE_MS);
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatchObject({ id: jobId, payload, attempt: 2 });
      expect(await countsOf(queue, name)).toEqual({
        waiting: 0,
        active: 0,
        delayed: 0,
        parked: 0,
        completed: 1,
      });
    });

    it('renews the lease of a long-running handler, so no other worker takes its job', async () => {
      const first = await create();
      const second = await create();
      const name = uniqueName('long-running');
      const runs: { attempt: number; aborted: boolean }[] = [];
      const handler = async (job: ActiveJob) => {
        await sleep(options.longRunningMs ?? 2_000);
        runs.push({ attempt: job.attempt, aborted: job.abortSignal.aborted });
      };
      first.process({ name, handler });
      second.process({ name, handler });
      await first.enqueue({ name, payload: {} });
      await waitFor(async () => (await countsOf(first, name)).completed === 1, {
        description: 'the long-running job to complete',
        timeoutMs: (options.longRunningMs ?? 2_000) + 10_000,
      });
      await sleep(SETTLE_MS);
      expect(runs).toEqual([{ attempt: 1, aborted: false }]);
    });

    it('close() aborts a handler that outlives the deadline; the job runs again later', async () => {
      const first = await create();
      const name = uniqueName('shutdown');
      let signal: AbortSignal | undefined;
      let startedResolve: () => void = () => {};
      const started = new Promise<void>((resolve) => {
        startedResolve = resolve;
      });
      first.process({
        name,
        handler: (job) => {
          signal = job.abortSignal;
          startedResolve();
          return new Promise<void>(() => {});
        },
      });
      const { jobId } = await first.enqueue({ name, payload: { step: 'shutdown' }, attempts: 1 });
      await started;
      await first.close({ timeoutMs: 100 });
      expect(signal?.aborted).toBe(true);
      expect(signal?.reason).toBeInstanceOf(NexusError);

      const second = await create();
      expect(await countsOf(second, name)).toMatchObject({ waiting: 1, active: 0, parked: 0 });
      const seen: ActiveJob[] = [];
      second.process({ name, handler: async (job) => void seen.push(job) });
      await completed(second, name, 1);
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatchObject({ id: jobId, payload: { step: 'shutdown' }, attempt: 2 });
    });

    it('close() lets a handler finish within the deadline', async () => {
      const first = await create();
      const name = uniqueName('graceful');
      let signal: AbortSignal | undefined;
      let finished = false;
      first.process({
        name,
        handler: async (job) => {
          signal = job.abortSignal;
          await sleep(200);
          finished = true;
        },
      });
      await first.enqueue({ name, payload: {} });
      await waitFor(() => signal !== undefined, { description: 'the handler to start' });
      await first.close({ timeoutMs: 5_000 });
      expect(finished).toBe(true);
      expect(signal?.aborted).toBe(false);
      const second = await create();
      expect(await countsOf(second, name)).toMatchObject({ completed: 1, waiting: 0, active: 0 });
    });

    it('stop() ends one processor; later jobs wait for the next', async () => {
      const queue = await create();
      const name = uniqueName('stop');
      let calls = 0;
      const count = async () => {
        calls += 1;
      };
      const processor = queue.process({ name, handler: count });
      await processor.stop();
      await queue.enqueue({ name, payload: {} });
      await sleep(SETTLE_MS);
      expect(calls).toBe(0);
      expect(await countsOf(queue, name)).toMatchObject({ waiting: 1 });
      queue.process({ name, handler: count });
      await completed(queue, name, 1);
      expect(calls).toBe(1);
    });

    it('rejects bad input with a clear error and keeps working', async () => {
      const queue = await create();
      const name = uniqueName('invalid');
      await expect(queue.enqueue({ name: 'has space', payload: {} })).rejects.toBeInstanceOf(NexusError);
      await expect(queue.enqueue({ name: 'a:b', payload: {} })).rejects.toBeInstanceOf(NexusError);
      await expect(queue.enqueue({ name, payload: { big: 1n } })).rejects.toThrow(/JSON/);
      await expect(queue.enqueue({ name, payload: undefined })).rejects.toThrow(/JSON/);
      await expect(queue.enqueue({ name, payload: {}, attempts: 0 })).rejects.toThrow(/attempts/);
      await expect(queue.enqueue({ name, payload: {}, jobId: '' })).rejects.toThrow(/jobId/);
      expect(() => queue.process({ name, concurrency: 0, handler: async () => {} })).toThrow(/concurrency/);
      await expect(queue.counts({ name: 'a:b' })).rejects.toMatchObject({ code: 'invalid_config' });
      await expect(queue.parked({ name: 'a b' })).rejects.toMatchObject({ code: 'invalid_config' });
      expect(await countsOf(queue, name)).toEqual({
        waiting: 0,
        active: 0,
        delayed: 0,
        parked: 0,
        completed: 0,
      });
      expect(await queue.enqueue({ name, payload: { fine: true } })).toMatchObject({ deduplicated: false });
    });

    it('refuses a payload over the cap with payload_too_large, stores nothing, and takes one at the cap', async () => {
      const queue = await create();
      const name = uniqueName('payload-cap');
      // `{"text":"…"}` is 11 bytes around the text; "é" is two bytes in UTF-8 and one character.
      const atCap = { text: `${'é'.repeat((DEFAULT_MAX_JOB_PAYLOAD_BYTES - 12) / 2)}a` };
      expect(Buffer.byteLength(JSON.stringify(atCap))).toBe(DEFAULT_MAX_JOB_PAYLOAD_BYTES);
      const overCap = { text: `${atCap.text}c` };
      await expect(queue.enqueue({ name, payload: overCap })).rejects.toMatchObject({
        code: 'payload_too_large',
        retryable: false,
        message: expect.stringContaining(`cap of ${DEFAULT_MAX_JOB_PAYLOAD_BYTES}`),
      });
      expect((await countsOf(queue, name)).waiting).toBe(0);
      expect(await queue.enqueue({ name, payload: atCap })).toMatchObject({ deduplicated: false });
      expect((await countsOf(queue, name)).waiting).toBe(1);
    });
  });
}
