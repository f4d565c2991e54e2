import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
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
});
