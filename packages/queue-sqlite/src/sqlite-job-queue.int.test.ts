import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { type ActiveJob, type JobQueue, NexusError, PermanentJobError } from '@nexus/protocol';
import { describeJobQueueContract, sleep, waitFor } from '@nexus/queue-kit/testing';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createSqliteJobQueue, type SqliteJobQueueOptions } from './sqlite-job-queue.ts';
import { LEASE_LOST_REASON, SqliteJobStore } from './sqlite-job-store.ts';

const directory = mkdtempSync(join(tmpdir(), 'nexus-job-queue-'));
// A short lease so a SIGKILLed worker's job comes back within a second.
const options: SqliteJobQueueOptions = {
  path: join(directory, 'jobs.sqlite'),
  leaseMs: 500,
  pollIntervalMs: 50,
};

describeJobQueueContract({
  name: 'SQLite (node:sqlite)',
  create: async () => createSqliteJobQueue(options),
  cleanup: async () => rmSync(directory, { recursive: true, force: true }),
  worker: {
    module: fileURLToPath(new URL('./sqlite-job-queue.ts', import.meta.url)),
    exportName: 'createSqliteJobQueue',
    options,
  },
});

describe('SQLite job queue specifics', () => {
  const opened: JobQueue[] = [];
  let fileNumber = 0;
  function open(extra: Partial<SqliteJobQueueOptions> & { path: string }): JobQueue {
    const queue = createSqliteJobQueue({ leaseMs: 300, pollIntervalMs: 50, ...extra });
    opened.push(queue);
    return queue;
  }
  function freshPath(): string {
    fileNumber += 1;
    return join(directory, `specific-${fileNumber}.sqlite`);
  }
  const countsOf = (queue: JobQueue) => queue.counts({ name: 'work' });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((queue) => queue.close({ timeoutMs: 0 })));
  });
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it('upgrades a file of per-turn jobs (schema 2): they all run once beside the debounced one', async () => {
    const path = freshPath();
    // A file as version 2 left it, with three per-turn summary jobs of one conversation waiting.
    mkdirSync(dirname(path), { recursive: true });
    const old = new DatabaseSync(path);
    old.exec(`CREATE TABLE jobs (
       seq INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, id TEXT NOT NULL, payload TEXT NOT NULL,
       status TEXT NOT NULL CHECK (status IN ('waiting', 'active', 'completed', 'parked')),
       run_at INTEGER NOT NULL, max_attempts INTEGER NOT NULL,
       backoff_type TEXT NOT NULL CHECK (backoff_type IN ('exponential', 'fixed')),
       backoff_delay_ms INTEGER NOT NULL, attempts_started INTEGER NOT NULL DEFAULT 0,
       attempts_failed INTEGER NOT NULL DEFAULT 0, lease_expiries INTEGER NOT NULL DEFAULT 0,
       lease_token TEXT, lease_until INTEGER, last_error TEXT, created_at INTEGER NOT NULL,
       finished_at INTEGER, traceparent TEXT, UNIQUE (name, id));
     CREATE INDEX jobs_ready ON jobs (name, status, run_at);
     CREATE INDEX jobs_finished ON jobs (status, finished_at);
     PRAGMA user_version = 2;`);
    const insert = old.prepare(
      `INSERT INTO jobs (name, id, payload, status, run_at, max_attempts, backoff_type, backoff_delay_ms, created_at)
       VALUES ('work', ?, ?, 'waiting', ?, 3, 'exponential', 5000, 0)`,
    );
    for (const turn of ['m1', 'm2', 'm3']) {
      insert.run(`chat:${turn}`, JSON.stringify({ lastIntentId: turn }), Date.now() + 100);
    }
    old.close();
    const queue = open({ path });
    await queue.enqueue({ name: 'work', payload: { lastIntentId: 'm4' }, debounceKey: 'chat', delayMs: 150 });
    await queue.enqueue({ name: 'work', payload: { lastIntentId: 'm5' }, debounceKey: 'chat', delayMs: 150 });
    const counts = await countsOf(queue);
    expect(counts.waiting + counts.delayed).toBe(4);
    const seen: unknown[] = [];
    queue.process({ name: 'work', handler: async (job) => void seen.push(job.payload) });
    await waitFor(async () => (await countsOf(queue)).completed === 4, { description: 'four jobs run' });
    await sleep(200);
    expect(seen).toEqual(['m1', 'm2', 'm3', 'm5'].map((lastIntentId) => ({ lastIntentId })));
    const check = new DatabaseSync(path, { readOnly: true });
    expect(check.prepare('PRAGMA user_version').get()).toEqual({ user_version: 5 });
    check.close();
  });

  it('wakes processors of the same file at once on enqueue, without waiting for the poll', async () => {
    const path = freshPath();
    const worker = open({ path, pollIntervalMs: 60_000 });
    const producer = open({ path, pollIntervalMs: 60_000 });
    const seen: string[] = [];
    worker.process({ name: 'work', handler: async (job) => void seen.push(job.id) });
    await sleep(50);
    const { jobId } = await producer.enqueue({ name: 'work', payload: {} });
    await waitFor(() => seen.length === 1, { description: 'the job to run', timeoutMs: 2_000 });
    expect(seen).toEqual([jobId]);
    await producer.enqueue({ name: 'work', payload: {}, delayMs: 200 });
    await waitFor(() => seen.length === 2, {
      description: 'the delayed job to run when due',
      timeoutMs: 2_000,
    });
  });

  it('writes the outcomes of jobs that finished just before close, though the next claim never came', async () => {
    // Outcomes are written with the pump's next claim; closing right after the last handler
    // returned must still write them (close writes what is left), or the jobs would run again.
    const path = freshPath();
    const queue = open({ path });
    let calls = 0;
    let lastDone: (() => void) | undefined;
    const allDone = new Promise<void>((resolve) => {
      lastDone = resolve;
    });
    queue.process({
      name: 'work',
      concurrency: 4,
      handler: async () => {
        calls += 1;
        if (calls === 20) lastDone?.();
      },
    });
    await Promise.all(Array.from({ length: 20 }, () => queue.enqueue({ name: 'work', payload: {} })));
    await allDone;
    await queue.close({ timeoutMs: 5_000 });
    const reopened = open({ path });
    expect(await countsOf(reopened)).toMatchObject({ completed: 20, waiting: 0, active: 0 });
    expect(calls).toBe(20);
  });

  it('aborts a handler whose lease another worker took, and ignores its outcome', async () => {
    const path = freshPath();
    const slow = open({ path });
    let slowSignal: AbortSignal | undefined;
    slow.process({
      name: 'work',
      handler: async (job) => {
        slowSignal = job.abortSignal;
        await new Promise((resolve) => job.abortSignal.addEventListener('abort', resolve));
      },
    });
    const { jobId } = await slow.enqueue({ name: 'work', payload: {} });
    await waitFor(() => slowSignal !== undefined, { description: 'the first worker to start' });
    // A worker whose clock runs a minute ahead sees the lease as expired and takes the job.
    const ahead = open({ path, now: () => Date.now() + 60_000 });
    const seen: ActiveJob[] = [];
    ahead.process({ name: 'work', handler: async (job) => void seen.push(job) });
    await waitFor(() => slowSignal?.aborted === true, { description: 'the first handler to be aborted' });
    expect(slowSignal?.reason).toBeInstanceOf(NexusError);
    await waitFor(async () => (await countsOf(slow)).completed === 1, { description: 'completion' });
    expect(seen.map((job) => [job.id, job.attempt])).toEqual([[jobId, 2]]);
  });

  it('parks a job whose lease expired more often than allowed', async () => {
    const path = freshPath();
    const stuck = open({ path });
    stuck.process({ name: 'work', handler: () => new Promise(() => {}) });
    const { jobId } = await stuck.enqueue({ name: 'work', payload: { poison: true } });
    await waitFor(async () => (await countsOf(stuck)).active === 1, { description: 'the job to start' });
    const ahead = open({ path, now: () => Date.now() + 60_000, maxLeaseExpiries: 0 });
    const calls: string[] = [];
    ahead.process({ name: 'work', handler: async (job) => void calls.push(job.id) });
    await waitFor(async () => (await countsOf(stuck)).parked === 1, { description: 'the job to be parked' });
    expect(await stuck.parked({ name: 'work' })).toMatchObject([
      { id: jobId, payload: { poison: true }, attempts: 1, reason: LEASE_LOST_REASON },
    ]);
    expect(calls).toEqual([]);
  });

  it('a processor busy claiming after every job still hands back an expired lease within a poll interval', async () => {
    const path = freshPath();
    // A worker that leased a job and died: the lease runs out 100 ms from now, nobody renews it.
    const dead = open({ path, pollIntervalMs: 60_000 });
    await dead.enqueue({ name: 'work', payload: 'orphan', jobId: 'orphan' });
    await dead.close();
    const store = new SqliteJobStore({ path, busyTimeoutMs: 1_000 });
    const now = Date.now();
    const leased = store.claim({
      name: 'work',
      limit: 1,
      token: 'dead',
      now,
      leaseUntil: now + 100,
      maxLeaseExpiries: 1,
      recover: false,
    });
    store.close();
    expect(leased.claimed.map((job) => [job.id, job.attemptsStarted])).toEqual([['orphan', 1]]);
    const busy = open({ path, pollIntervalMs: 50 });
    const attempts = new Map<string, number>();
    let feeding = true;
    busy.process({
      name: 'work',
      handler: async (job) => {
        attempts.set(job.id, job.attempt);
        // Every finished job makes the processor claim again, so it never goes idle to poll.
        if (feeding) await busy.enqueue({ name: 'work', payload: 'filler' });
      },
    });
    await busy.enqueue({ name: 'work', payload: 'filler' });
    await waitFor(() => attempts.has('orphan'), { description: 'the orphan to run again', timeoutMs: 2_000 });
    feeding = false;
    expect(attempts.get('orphan')).toBe(2);
    expect(attempts.size).toBeGreaterThan(2);
  });

  it('after a finished job, takes at once a job another connection added while it ran (no poll needed)', async () => {
    const path = freshPath();
    const queue = open({ path, pollIntervalMs: 60_000 });
    const ran: string[] = [];
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    // A slot stays free while the first job runs: the claim that took it saw no other job waiting.
    queue.process({
      name: 'work',
      concurrency: 2,
      handler: async (job) => {
        ran.push(job.id);
        if (job.id === 'first') await gate;
      },
    });
    await queue.enqueue({ name: 'work', payload: {}, jobId: 'first' });
    await waitFor(() => ran.length === 1, { description: 'the first job to start' });
    // Another process's enqueue: a second connection, which wakes nobody here.
    const other = new SqliteJobStore({ path, busyTimeoutMs: 1_000 });
    const time = Date.now();
    other.insertMany([
      {
        name: 'work',
        id: 'second',
        payloadJson: '{}',
        runAt: time,
        maxAttempts: 3,
        backoff: { type: 'fixed', delayMs: 10 },
        createdAt: time,
      },
    ]);
    other.close();
    await sleep(50);
    release();
    await waitFor(() => ran.length === 2, { description: 'the second job to run', timeoutMs: 2_000 });
    expect(ran).toEqual(['first', 'second']);
  });

  it('runs a retry when its backoff ends, with a poll interval far longer', async () => {
    const queue = open({ path: freshPath(), pollIntervalMs: 60_000 });
    const attempts: number[] = [];
    queue.process({
      name: 'work',
      handler: async (job) => {
        attempts.push(job.attempt);
        if (job.attempt === 1) throw new Error('once');
      },
    });
    await queue.enqueue({ name: 'work', payload: {}, attempts: 2, backoff: { type: 'fixed', delayMs: 100 } });
    await waitFor(() => attempts.length === 2, { description: 'the retry', timeoutMs: 2_000 });
    expect(attempts).toEqual([1, 2]);
  });

  it('forgets completed jobs after keepCompletedMs, so their jobId can be used again', async () => {
    let clock = Date.UTC(2026, 0, 1);
    const queue = open({ path: freshPath(), keepCompletedMs: 1_000, now: () => clock });
    const seen: unknown[] = [];
    queue.process({ name: 'work', handler: async (job) => void seen.push(job.payload) });
    await queue.enqueue({ name: 'work', payload: 1, jobId: 'daily-summary' });
    await waitFor(async () => (await countsOf(queue)).completed === 1, { description: 'completion' });
    expect(await queue.enqueue({ name: 'work', payload: 2, jobId: 'daily-summary' })).toMatchObject({
      deduplicated: true,
    });
    clock += 120_000;
    await queue.enqueue({ name: 'other', payload: 'prunes on the way' });
    expect(await countsOf(queue)).toMatchObject({ completed: 0 });
    expect(await queue.enqueue({ name: 'work', payload: 3, jobId: 'daily-summary' })).toMatchObject({
      deduplicated: false,
    });
    await waitFor(() => seen.length === 2, { description: 'the reused id to run' });
    expect(seen).toEqual([1, 3]);
  });

  it('keeps parked jobs for keepFailedMs and the newest keepFailedCount per name; those kept can be retried', async () => {
    let clock = Date.UTC(2026, 0, 1);
    const queue = open({ path: freshPath(), keepFailedCount: 2, keepFailedMs: 3_600_000, now: () => clock });
    let healed = false;
    const fail = async (job: ActiveJob) => {
      if (!healed) throw new PermanentJobError({ message: `bad ${String(job.payload)}` });
    };
    queue.process({ name: 'work', handler: fail });
    queue.process({ name: 'other', handler: fail });
    const parkedCount = async () => (await queue.counts()).parked;
    // One a second, each parked before the next; no prune runs yet (one a minute).
    for (const [index, id] of ['a', 'b', 'c'].entries()) {
      await queue.enqueue({ name: 'work', payload: id, jobId: id, attempts: 1 });
      await waitFor(async () => (await parkedCount()) === index + 1, { description: `${id} to be parked` });
      clock += 1_000;
    }
    await queue.enqueue({ name: 'other', payload: 'x', jobId: 'x', attempts: 1 });
    await waitFor(async () => (await parkedCount()) === 4, { description: 'x to be parked' });
    expect((await queue.parked()).map((job) => job.id)).toEqual(['x', 'c', 'b', 'a']);

    clock += 60_000;
    await queue.enqueue({ name: 'idle', payload: 'prunes on the way' });
    expect((await queue.parked({ name: 'work' })).map((job) => job.id)).toEqual(['c', 'b']);
    expect((await queue.parked({ name: 'other' })).map((job) => job.id)).toEqual(['x']);
    // The pruned job's id is free again, as after keepCompletedMs for a completed one.
    expect(
      await queue.enqueue({ name: 'work', payload: 'a2', jobId: 'a', delayMs: 86_400_000 }),
    ).toMatchObject({
      deduplicated: false,
    });

    healed = true;
    expect(await queue.retryParked({ jobId: 'b', name: 'work' })).toEqual({ retried: true });
    await waitFor(async () => (await countsOf(queue)).completed === 1, { description: 'b to run again' });

    // An hour after they were parked, c and x go too; the completed and the waiting job stay.
    clock += 3_600_000;
    await queue.enqueue({ name: 'idle', payload: 'prunes on the way' });
    expect(await queue.parked()).toEqual([]);
    expect(await countsOf(queue)).toMatchObject({ parked: 0, completed: 1, delayed: 1 });
  });

  it('refuses keepFailedMs and keepFailedCount that are not positive whole numbers, naming the option', () => {
    const path = freshPath();
    for (const option of ['keepFailedMs', 'keepFailedCount'] as const) {
      for (const value of [-1, 0, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
        expect(() => createSqliteJobQueue({ path, [option]: value })).toThrow(
          expect.objectContaining({
            code: 'invalid_config',
            message: `${option} must be a positive whole number.`,
          }),
        );
      }
    }
  });

  it('refuses work after close with a clear error', async () => {
    const queue = open({ path: freshPath() });
    await queue.close();
    await expect(queue.enqueue({ name: 'work', payload: {} })).rejects.toMatchObject({
      code: 'shutting_down',
    });
    expect(() => queue.process({ name: 'work', handler: async () => {} })).toThrow(NexusError);
  });
});
