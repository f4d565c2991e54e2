import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { compilesOf } from '@nexus/sqlite-kit/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type NewJob, SqliteJobStore } from './sqlite-job-store.ts';

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
});
