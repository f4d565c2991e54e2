import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { compilesOf } from '@nexus/sqlite-kit/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type ClaimedJob, type NewJob, SqliteJobStore } from './sqlite-job-store.ts';

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function newJob(id: string): NewJob {
  return {
    name: 'work',
    id,
    payloadJson: JSON.stringify({ id }),
    runAt: 1,
    maxAttempts: 3,
    backoff: { type: 'fixed', delayMs: 10 },
    createdAt: 1,
  };
}

function openStore(): { store: SqliteJobStore; path: string } {
  const directory = mkdtempSync(join(tmpdir(), 'nexus-job-store-'));
  directories.push(directory);
  const path = join(directory, 'jobs.sqlite');
  return { store: new SqliteJobStore({ path, busyTimeoutMs: 1_000 }), path };
}

/** Adds a job of `name` and parks it at `parkedAt`, as a worker does after its last attempt. */
function parkJob(store: SqliteJobStore, name: string, id: string, parkedAt: number): void {
  store.insertMany([{ ...newJob(id), name }]);
  const { claimed } = store.claim({
    name,
    limit: 1,
    token: `worker-${id}`,
    now: parkedAt,
    leaseUntil: parkedAt + 1_000,
    maxLeaseExpiries: 1,
    recover: false,
  });
  expect(claimed.map((job) => job.id)).toEqual([id]);
  expect(store.park(claimed[0] as ClaimedJob, parkedAt, `failed ${id}`)).toBe(true);
}

const parkedIds = (store: SqliteJobStore, name?: string) =>
  store.parked({ name, limit: 10_000 }).map((job) => job.id);

describe('SqliteJobStore', () => {
  it('keeps the other outcomes of a batch when one outcome statement fails, without savepoints', () => {
    const directory = mkdtempSync(join(tmpdir(), 'nexus-job-store-'));
    directories.push(directory);
    const path = join(directory, 'jobs.sqlite');
    const store = new SqliteJobStore({ path, busyTimeoutMs: 1_000 });
    store.insertMany([newJob('good'), newJob('bad')]);
    const { claimed } = store.claim({
      name: 'work',
      limit: 2,
      token: 'worker',
      now: 10,
      leaseUntil: 10_000,
      maxLeaseExpiries: 1,
      recover: false,
    });
    expect(claimed.map((job) => [job.id, job.attemptsStarted])).toEqual([
      ['good', 1],
      ['bad', 1],
    ]);
    // Another connection makes SQLite itself refuse one of the two completions.
    const other = new DatabaseSync(path);
    other.exec(`CREATE TRIGGER refuse BEFORE UPDATE OF status ON jobs
      WHEN NEW.id = 'bad' AND NEW.status = 'completed' BEGIN SELECT RAISE(ABORT, 'refused'); END`);
    const outcomes = store.batch(() => claimed.map((job) => store.writeAlone(() => store.complete(job, 20))));
    expect(outcomes[0]).toBe(true);
    expect(outcomes[1]).toBeInstanceOf(Error);
    expect(String(outcomes[1])).toContain('refused');
    const rows = other.prepare('SELECT id, status FROM jobs ORDER BY seq').all();
    expect(rows.map((row) => [row.id, row.status])).toEqual([
      ['good', 'completed'],
      ['bad', 'active'],
    ]);
    other.close();
    store.close();
  });

  it('compiles its claim once, not on every claim, and takes the jobs `name = ?` orders first', () => {
    const directory = mkdtempSync(join(tmpdir(), 'nexus-job-store-'));
    directories.push(directory);
    const path = join(directory, 'jobs.sqlite');
    const prepare = vi.spyOn(DatabaseSync.prototype, 'prepare');
    const store = new SqliteJobStore({ path, busyTimeoutMs: 1_000 });
    const database = prepare.mock.contexts[0] as DatabaseSync;
    prepare.mockRestore();
    // Ties on run time (taken by insertion order), another queue's jobs, and jobs not due yet.
    const runAts = [5, 3, 3, 9, 1, 3, 50, 60];
    store.insertMany(runAts.map((runAt, index) => ({ ...newJob(`job-${index}`), runAt })));
    store.insertMany([{ ...newJob('elsewhere'), name: 'other', runAt: 0 }]);
    const other = new DatabaseSync(path);
    const order = other
      .prepare(`SELECT id, run_at FROM jobs WHERE name = ? AND status = 'waiting' ORDER BY run_at, seq`)
      .all('work')
      .map((row) => [row.id, row.run_at]);
    const taken: string[] = [];
    const nextRunAts: (number | undefined)[] = [];
    const claims = () => {
      for (let run = 0; run < 3; run += 1) {
        const { claimed, nextRunAt } = store.claim({
          name: 'work',
          limit: 1,
          token: 'worker',
          now: 10,
          leaseUntil: 10_000,
          maxLeaseExpiries: 1,
          recover: false,
        });
        taken.push(...claimed.map((job) => job.id));
        nextRunAts.push(nextRunAt);
      }
    };
    // Six claims: three warm the statements, three are counted.
    expect(compilesOf(database, claims)).toBe(0);
    expect(taken).toEqual(order.slice(0, 6).map(([id]) => id));
    expect(taken).toEqual(['job-4', 'job-1', 'job-2', 'job-5', 'job-0', 'job-3']);
    expect(nextRunAts).toEqual(order.slice(1, 7).map(([, runAt]) => runAt));
    other.close();
    store.close();
  });

  it('keeps the newest parked jobs of each name up to the count, removing the oldest first', () => {
    const { store } = openStore();
    // Ties on the parking time are broken by insertion order, newest last, as parked() lists them.
    const times: [string, number][] = [
      ['w1', 100],
      ['w2', 300],
      ['w3', 200],
      ['w4', 300],
      ['w5', 50],
      ['w6', 400],
    ];
    for (const [id, time] of times) parkJob(store, 'work', id, time);
    for (const [id, time] of [['o1', 10] as const, ['o2', 20] as const]) parkJob(store, 'other', id, time);
    store.insertMany([{ ...newJob('still-waiting'), runAt: 1_000_000 }]);
    expect(parkedIds(store, 'work')).toEqual(['w6', 'w4', 'w2', 'w3', 'w1', 'w5']);

    const removed = store.prune({ completedBefore: 0, parkedBefore: 0, parkedPerName: 3 });

    expect(removed).toEqual({ completed: 0, parked: 3 });
    expect(parkedIds(store, 'work')).toEqual(['w6', 'w4', 'w2']);
    expect(parkedIds(store, 'other')).toEqual(['o2', 'o1']);
    expect(store.counts({ name: 'work', now: 0 })).toMatchObject({ delayed: 1, parked: 3 });
    // A second prune finds every name within its count.
    expect(store.prune({ completedBefore: 0, parkedBefore: 0, parkedPerName: 3 })).toEqual({
      completed: 0,
      parked: 0,
    });
    // A cut-off between two jobs parked at the same time: the one enqueued later (w4) stays.
    expect(store.prune({ completedBefore: 0, parkedBefore: 0, parkedPerName: 2 }).parked).toBe(1);
    expect(parkedIds(store)).toEqual(['w6', 'w4', 'o2', 'o1']);
    expect(store.prune({ completedBefore: 0, parkedBefore: 0, parkedPerName: 1 }).parked).toBe(2);
    expect(parkedIds(store)).toEqual(['w6', 'o2']);
    store.close();
  });

  it('removes parked jobs parked before the cut-off, of every name, and no other job', () => {
    const { store } = openStore();
    parkJob(store, 'work', 'old', 1_000);
    parkJob(store, 'work', 'at-cut-off', 2_000);
    parkJob(store, 'other', 'old-other', 1_500);
    parkJob(store, 'other', 'recent', 5_000);
    store.insertMany([{ ...newJob('waiting'), createdAt: 0 }]);

    expect(store.prune({ completedBefore: 0, parkedBefore: 2_000, parkedPerName: 1_000 })).toEqual({
      completed: 0,
      parked: 2,
    });

    expect(parkedIds(store)).toEqual(['recent', 'at-cut-off']);
    expect(store.counts({ name: undefined, now: 10 })).toMatchObject({ waiting: 1, parked: 2 });
    store.close();
  });

  it('prunes through indexes: the parked jobs alone, no table scan and no sort', () => {
    const prepare = vi.spyOn(DatabaseSync.prototype, 'prepare');
    const { store, path } = openStore();
    const prunes = prepare.mock.calls
      .map(([sql]) => sql)
      .filter((sql) => /DELETE FROM jobs WHERE status|WITH RECURSIVE names|LIMIT 1 OFFSET/.test(sql));
    prepare.mockRestore();
    // Completed by age, parked by age, the names with parked jobs, each one's cut-off, its delete.
    expect(prunes).toHaveLength(5);
    const other = new DatabaseSync(path, { readOnly: true });
    for (const sql of prunes) {
      const plan = other
        .prepare(`EXPLAIN QUERY PLAN ${sql}`)
        .all()
        .map((row) => String(row.detail));
      // A SCAN of the table would read every job; a temporary B-tree would sort the parked ones.
      expect(plan.filter((step) => /^SCAN jobs\b/.test(step) && !step.includes('jobs_parked'))).toEqual([]);
      expect(plan.filter((step) => step.includes('TEMP B-TREE'))).toEqual([]);
      expect(plan.some((step) => /USING (COVERING )?INDEX jobs_(finished|parked)\b/.test(step))).toBe(true);
    }
    other.close();
    store.close();
  });
});
