import { randomBytes } from 'node:crypto';
import type { ActiveJob, JobQueue } from '@nexus/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { sleep, waitFor } from './wait-for.ts';

/** Longer than any poll interval: a job that would run twice shows up within it. */
const SETTLE_MS = 400;

/**
 * `EnqueueJobOptions.debounceKey`: one waiting job per key whose payload and run time follow the
 * last enqueue, durable across close and reopen, and a running job left alone (its follow-up runs
 * after it). Part of the JobQueue contract (`describeJobQueueContract` runs it).
 */
export function describeJobQueueDebounceContract(options: {
  name: string;
  create: () => Promise<JobQueue>;
}): void {
  describe(`JobQueue contract (debounce): ${options.name}`, () => {
    const opened: JobQueue[] = [];
    const runId = randomBytes(3).toString('hex');
    let caseNumber = 0;

    async function create(): Promise<JobQueue> {
      const queue = await options.create();
      opened.push(queue);
      return queue;
    }
    function uniqueName(label: string): string {
      caseNumber += 1;
      return `debounce.${runId}.${caseNumber}.${label}`;
    }
    const completed = (queue: JobQueue, name: string, count: number) =>
      waitFor(async () => (await queue.counts({ name })).completed === count, {
        description: `${count} completed job(s) of ${name}`,
      });

    afterEach(async () => {
      await Promise.all(opened.splice(0).map((queue) => queue.close({ timeoutMs: 0 })));
    });

    it('keeps one waiting job per key: the last payload runs once, delayMs after the last enqueue', async () => {
      const queue = await create();
      const name = uniqueName('quiet');
      const first = await queue.enqueue({ name, payload: { turn: 1 }, debounceKey: 'chat-a', delayMs: 400 });
      expect(first.deduplicated).toBe(false);
      await sleep(150);
      await queue.enqueue({ name, payload: { turn: 2 }, debounceKey: 'chat-a', delayMs: 400 });
      await sleep(150);
      await queue.enqueue({ name, payload: { turn: 3 }, debounceKey: 'chat-a', delayMs: 400 });
      const lastAt = Date.now();
      await queue.enqueue({ name, payload: { turn: 1 }, debounceKey: 'chat-b', delayMs: 400 });
      expect(await queue.counts({ name })).toMatchObject({ waiting: 0, delayed: 2, active: 0 });
      const seen: { job: ActiveJob; at: number }[] = [];
      queue.process({ name, handler: async (job) => void seen.push({ job, at: Date.now() }) });
      await completed(queue, name, 2);
      await sleep(SETTLE_MS);
      expect(seen.map(({ job }) => job.payload)).toEqual(expect.arrayContaining([{ turn: 3 }, { turn: 1 }]));
      expect(seen).toHaveLength(2);
      const chatA = seen.find(({ job }) => (job.payload as { turn: number }).turn === 3)!;
      expect(chatA.at - lastAt).toBeGreaterThanOrEqual(380);
      expect(chatA.job.attempt).toBe(1);
      // Finished: the key starts a new job.
      const again = await queue.enqueue({ name, payload: { turn: 4 }, debounceKey: 'chat-a', delayMs: 50 });
      expect(again.deduplicated).toBe(false);
      await completed(queue, name, 3);
      expect(seen.at(-1)?.job.payload).toEqual({ turn: 4 });
    });

    it('keeps the debounced job across close and reopen, and moves it on after the reopen', async () => {
      const first = await create();
      const name = uniqueName('durable');
      await first.enqueue({ name, payload: { turn: 1 }, debounceKey: 'chat', delayMs: 300 });
      await first.enqueue({ name, payload: { turn: 2 }, debounceKey: 'chat', delayMs: 300 });
      await first.close();
      const second = await create();
      expect(await second.counts({ name })).toMatchObject({ delayed: 1 });
      await second.enqueue({ name, payload: { turn: 3 }, debounceKey: 'chat', delayMs: 300 });
      expect(await second.counts({ name })).toMatchObject({ delayed: 1 });
      const seen: unknown[] = [];
      second.process({ name, handler: async (job) => void seen.push(job.payload) });
      await completed(second, name, 1);
      await sleep(SETTLE_MS);
      expect(seen).toEqual([{ turn: 3 }]);
    });

    it('leaves a running job alone: an enqueue meanwhile runs after it, with the latest payload', async () => {
      const queue = await create();
      const name = uniqueName('running');
      await queue.enqueue({ name, payload: { turn: 1 }, debounceKey: 'chat', delayMs: 50 });
      let release: () => void = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      const runs: { payload: unknown; aborted: boolean; at: number }[] = [];
      let lastAt = 0;
      queue.process({
        name,
        handler: async (job) => {
          if (runs.length === 0) await released;
          runs.push({ payload: job.payload, aborted: job.abortSignal.aborted, at: Date.now() });
        },
      });
      await waitFor(async () => (await queue.counts({ name })).active === 1, {
        description: 'the first job running',
      });
      const during = await queue.enqueue({ name, payload: { turn: 2 }, debounceKey: 'chat', delayMs: 200 });
      await queue.enqueue({ name, payload: { turn: 3 }, debounceKey: 'chat', delayMs: 200 });
      lastAt = Date.now();
      expect(during.jobId).toEqual(expect.any(String));
      release();
      await completed(queue, name, 2);
      await sleep(SETTLE_MS);
      expect(runs.map((run) => [run.payload, run.aborted])).toEqual([
        [{ turn: 1 }, false],
        [{ turn: 3 }, false],
      ]);
      expect(runs[1]!.at - lastAt).toBeGreaterThanOrEqual(190);
    });

    /**
     * Leaves the `chat` job of `name` (payload `{ turn: 1 }`) due but not taken: queued second but
     * due first, a blocker takes the one worker slot (concurrency 1) and holds it until `release`.
     * BullMQ moves due jobs to its wait list only when a worker fetches, so the fetch that takes
     * the blocker is what makes the debounced job "due, not taken" there; SQLite has it due from
     * its run time alone.
     */
    async function dueBehindBlocker(queue: JobQueue, name: string) {
      await queue.enqueue({ name, payload: { turn: 1 }, debounceKey: 'chat', delayMs: 50 });
      await queue.enqueue({ name, payload: { blocker: true } });
      await sleep(150);
      let release: () => void = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      const runs: { payload: unknown; at: number }[] = [];
      queue.process({
        name,
        concurrency: 1,
        handler: async (job) => {
          runs.push({ payload: job.payload, at: Date.now() });
          if ((job.payload as { blocker?: boolean }).blocker) await released;
        },
      });
      await waitFor(async () => (await queue.counts({ name })).active === 1, {
        description: 'the blocker running',
      });
      expect(runs.map((run) => run.payload)).toEqual([{ blocker: true }]);
      return { runs, release };
    }

    it('replaces a job already due but not yet taken: the last payload runs, delayMs after the last enqueue', async () => {
      const queue = await create();
      const name = uniqueName('due');
      const { runs, release } = await dueBehindBlocker(queue, name);
      await queue.enqueue({ name, payload: { turn: 2 }, debounceKey: 'chat', delayMs: 200 });
      const lastAt = Date.now();
      release();
      await completed(queue, name, 2);
      await sleep(SETTLE_MS);
      expect(runs.map((run) => run.payload)).toEqual([{ blocker: true }, { turn: 2 }]);
      expect(runs[1]!.at - lastAt).toBeGreaterThanOrEqual(190);
    });

    it('runs one of two simultaneous enqueues (two gateways) on a job due but not yet taken, once', async () => {
      const queue = await create();
      const other = await create();
      const name = uniqueName('due-race');
      const { runs, release } = await dueBehindBlocker(queue, name);
      await Promise.all([
        queue.enqueue({ name, payload: { turn: 2, from: 'a' }, debounceKey: 'chat', delayMs: 100 }),
        other.enqueue({ name, payload: { turn: 2, from: 'b' }, debounceKey: 'chat', delayMs: 100 }),
      ]);
      release();
      await completed(queue, name, 2);
      await sleep(SETTLE_MS);
      expect(runs).toHaveLength(2);
      expect([
        [{ blocker: true }, { turn: 2, from: 'a' }],
        [{ blocker: true }, { turn: 2, from: 'b' }],
      ]).toContainEqual(runs.map((run) => run.payload));
    });

    it('keeps each key last payload running last while a busy worker takes jobs between enqueues', async () => {
      // Not a fixed schedule: three keys share one slow worker slot, so their jobs are due, taken
      // and running in every order against the enqueues; whatever the interleaving, the last run
      // of each key must hold its last payload.
      const queue = await create();
      const name = uniqueName('busy');
      const keys = ['a', 'b', 'c'];
      const runs: { key: string; turn: number }[] = [];
      queue.process({
        name,
        concurrency: 1,
        handler: async (job) => {
          runs.push(job.payload as { key: string; turn: number });
          await sleep(4);
        },
      });
      const turns = 40;
      for (let turn = 1; turn <= turns; turn += 1) {
        for (const key of keys) {
          await queue.enqueue({ name, payload: { key, turn }, debounceKey: key, delayMs: 10 });
        }
        await sleep(turn % 4 === 0 ? 30 : 3);
      }
      await waitFor(
        async () => {
          const counts = await queue.counts({ name });
          return counts.waiting + counts.delayed + counts.active === 0;
        },
        { description: 'the queue drained' },
      );
      await sleep(SETTLE_MS);
      const lastTurns = keys.map((key) => runs.findLast((run) => run.key === key)?.turn);
      expect(lastTurns).toEqual([turns, turns, turns]);
    });

    it('purgePayloads removes the follow-up waiting behind a running job', async () => {
      const queue = await create();
      const name = uniqueName('purge');
      await queue.enqueue({
        name,
        payload: { userId: 'person-9', turn: 1 },
        debounceKey: 'chat',
        delayMs: 50,
      });
      let release: () => void = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      const runs: unknown[] = [];
      queue.process({
        name,
        handler: async (job) => {
          runs.push(job.payload);
          if (runs.length === 1) await released;
        },
      });
      await waitFor(async () => (await queue.counts({ name })).active === 1, {
        description: 'the first job running',
      });
      await queue.enqueue({
        name,
        payload: { userId: 'person-9', turn: 2 },
        debounceKey: 'chat',
        delayMs: 50,
      });
      const purged = await queue.purgePayloads?.({ values: ['person-9'] });
      expect(purged?.running).toBe(1);
      expect(purged?.jobIds).toHaveLength(2);
      release();
      await sleep(SETTLE_MS);
      expect(runs).toEqual([{ userId: 'person-9', turn: 1 }]);
      // The key is free again: a new enqueue runs.
      await queue.enqueue({ name, payload: { turn: 3 }, debounceKey: 'chat', delayMs: 50 });
      await waitFor(() => runs.length === 2, { description: 'the next debounced job' });
      expect(runs[1]).toEqual({ turn: 3 });
    });

    it('refuses a debounce without a positive delay or with a jobId', async () => {
      const queue = await create();
      const name = uniqueName('invalid');
      await expect(queue.enqueue({ name, payload: {}, debounceKey: 'chat' })).rejects.toMatchObject({
        code: 'invalid_config',
      });
      await expect(
        queue.enqueue({ name, payload: {}, debounceKey: 'chat', delayMs: 100, jobId: 'x' }),
      ).rejects.toMatchObject({ code: 'invalid_config' });
      await expect(queue.enqueue({ name, payload: {}, debounceKey: '', delayMs: 100 })).rejects.toMatchObject(
        {
          code: 'invalid_config',
        },
      );
      expect(await queue.counts({ name })).toMatchObject({ waiting: 0, delayed: 0 });
    });
  });
}
