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

describe('scheduleSessionSummary', () => {
  it('leaves the job alone for turns within the quiet period of the turn it was scheduled after', async () => {
    const first = await scheduleSessionSummary({
      queue,
      payload: payload('m1'),
      idleMs: IDLE_MS,
      turnAt: Date.now(),
    });
    const second = await scheduleSessionSummary({
      queue,
      payload: payload('m2'),
      idleMs: IDLE_MS,
      turnAt: Date.now(),
    });

    expect(second).toEqual({ jobId: first.jobId, deduplicated: true });
    expect(enqueued).toEqual([{ ...payload('m1'), idleMs: IDLE_MS }]);
    expect(await queue.counts({ name: SESSION_SUMMARY_JOB })).toMatchObject({ delayed: 1 });
  });

  it('enqueues again once that quiet period is over, for another conversation, or without a turn time', async () => {
    await scheduleSessionSummary({
      queue,
      payload: payload('m1'),
      idleMs: IDLE_MS,
      turnAt: Date.now() - IDLE_MS,
    });
    await scheduleSessionSummary({ queue, payload: payload('m2'), idleMs: IDLE_MS, turnAt: Date.now() });
    await scheduleSessionSummary({
      queue,
      payload: { ...payload('b1'), sessionId: 'web:ana:other' },
      idleMs: IDLE_MS,
      turnAt: Date.now(),
    });
    // Without its turn's time a turn is not relied on: the next one enqueues too.
    for (const id of ['c1', 'c2']) {
      await scheduleSessionSummary({
        queue,
        payload: { ...payload(id), sessionId: 'web:ana:third' },
        idleMs: IDLE_MS,
      });
    }
    await scheduleSessionSummary({ queue, payload: payload('m4'), idleMs: IDLE_MS * 2, turnAt: Date.now() });

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
    await scheduleSessionSummary({ queue, payload: payload('m1'), idleMs: IDLE_MS, turnAt: Date.now() });
    await jobQueueEraser(queue).erase({ userIds: ['web:ana'], identities: [] }, {});
    expect(await queue.counts({ name: SESSION_SUMMARY_JOB })).toMatchObject({ delayed: 0 });

    await scheduleSessionSummary({ queue, payload: payload('m2'), idleMs: IDLE_MS, turnAt: Date.now() });
    expect(await queue.counts({ name: SESSION_SUMMARY_JOB })).toMatchObject({ delayed: 1 });
  });

  it('counts a turn stamped in the future as arriving now', async () => {
    await scheduleSessionSummary({
      queue,
      payload: payload('m1'),
      idleMs: IDLE_MS,
      turnAt: Date.now() + 60_000,
    });
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS + 20));
    await scheduleSessionSummary({ queue, payload: payload('m2'), idleMs: IDLE_MS, turnAt: Date.now() });
    expect(enqueued).toHaveLength(2);
  });
});
