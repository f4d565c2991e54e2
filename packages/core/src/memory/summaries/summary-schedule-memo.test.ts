import type { JobQueue } from '@nexus/protocol';
import { createSqliteJobQueue } from '@nexus/queue-sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { jobQueueEraser } from '../../identity/person-erasers.ts';
import { SESSION_SUMMARY_JOB, scheduleSessionSummary } from './session-summary-job.ts';

let queue: JobQueue;
let enqueued: unknown[];
const IDLE_MS = 200;
const payload = (lastIntentId: string) => ({ userId: 'web:ana', sessionId: 'web:ana:chat', lastIntentId });

beforeEach(() => {
  const sqlite = createSqliteJobQueue({ path: ':memory:', pollIntervalMs: 10 });
  enqueued = [];
  // The real queue, with each enqueue seen.
  queue = {
    ...sqlite,
    enqueue: (options) => {
      enqueued.push(options.payload);
      return sqlite.enqueue(options);
    },
    close: (options) => sqlite.close(options),
  };
});
afterEach(() => queue.close({ timeoutMs: 1000 }));

/** Schedules the summary after turn `lastIntentId` of Ana's chat (or `sessionId`), which arrived at `turnAt`. */
const schedule = (
  lastIntentId: string,
  options: { turnAt?: number; idleMs?: number; sessionId?: string } = {},
) =>
  scheduleSessionSummary({
    queue,
    payload: { ...payload(lastIntentId), ...(options.sessionId ? { sessionId: options.sessionId } : {}) },
    idleMs: options.idleMs ?? IDLE_MS,
    ...(options.turnAt !== undefined ? { turnAt: options.turnAt } : {}),
  });

describe('scheduleSessionSummary', () => {
  it('leaves the job alone for turns within the quiet period of the turn it was scheduled after', async () => {
    const first = await schedule('m1', { turnAt: Date.now() });
    const second = await schedule('m2', { turnAt: Date.now() });

    expect(second).toEqual({ jobId: first.jobId, deduplicated: true });
    expect(enqueued).toEqual([{ ...payload('m1'), idleMs: IDLE_MS }]);
    expect(await queue.counts({ name: SESSION_SUMMARY_JOB })).toMatchObject({ delayed: 1 });
  });

  it('enqueues again once that quiet period is over, for another conversation, or without a turn time', async () => {
    await schedule('m1', { turnAt: Date.now() - IDLE_MS });
    await schedule('m2', { turnAt: Date.now() });
    await schedule('b1', { turnAt: Date.now(), sessionId: 'web:ana:other' });
    // Without its turn's time a turn is not relied on: the next one enqueues too.
    for (const id of ['c1', 'c2']) await schedule(id, { sessionId: 'web:ana:third' });
    await schedule('m4', { turnAt: Date.now(), idleMs: IDLE_MS * 2 });

    expect(enqueued.map((job) => (job as { lastIntentId: string }).lastIntentId)).toEqual([
      'm1',
      'm2',
      'b1',
      'c1',
      'c2',
      'm4',
    ]);
  });

  it('enqueues again after a purge, which may have deleted the waiting job', async () => {
    await schedule('m1', { turnAt: Date.now() });
    await jobQueueEraser(queue).erase({ userIds: ['web:ana'], identities: [] }, {});
    expect(await queue.counts({ name: SESSION_SUMMARY_JOB })).toMatchObject({ delayed: 0 });

    await schedule('m2', { turnAt: Date.now() });
    expect(await queue.counts({ name: SESSION_SUMMARY_JOB })).toMatchObject({ delayed: 1 });
  });

  it('counts a turn stamped in the future as arriving now', async () => {
    await schedule('m1', { turnAt: Date.now() + 60_000 });
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS + 20));
    await schedule('m2', { turnAt: Date.now() });
    expect(enqueued).toHaveLength(2);
  });
});
