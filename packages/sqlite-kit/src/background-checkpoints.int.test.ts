import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { stopBackgroundCheckpoints } from './background-checkpoints.ts';
import { checkpointAndTruncate } from './checkpoint-and-truncate.ts';
import { inTransaction } from './in-transaction.ts';
import { openSqliteDatabase } from './open-sqlite-database.ts';

const directories: string[] = [];
function temporaryPath(): string {
  const directory = mkdtempSync(join(tmpdir(), 'nexus-checkpoints-'));
  directories.push(directory);
  return join(directory, 'store.sqlite');
}
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

const MIGRATIONS = ['CREATE TABLE rows (n INTEGER PRIMARY KEY, text TEXT NOT NULL)'];
const open = (path: string, backgroundCheckpoints: boolean) =>
  openSqliteDatabase({ path, migrations: MIGRATIONS, storeName: 'test store', backgroundCheckpoints });
const nextTurns = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Commits `count` rows of about a page each, one transaction each, letting the event loop run between batches. */
async function commitRows(database: DatabaseSync, from: number, count: number): Promise<void> {
  const insert = database.prepare('INSERT INTO rows (n, text) VALUES (?, ?)');
  for (let n = from; n < from + count; n++) {
    inTransaction(database, () => insert.run(n, 'x'.repeat(3_000)));
    if (n % 50 === 0) await nextTurns(1);
  }
}

describe('background checkpoints', () => {
  it('copy committed pages into the main file below the point where SQLite itself would checkpoint', async () => {
    for (const background of [false, true]) {
      const path = temporaryPath();
      const database = open(path, background);
      const before = statSync(path).size;
      // 300 commits of a page or two: under SQLite's own 1,000-page checkpoint, so only the thread copies.
      await commitRows(database, 0, 300);
      await nextTurns(300);
      const grown = statSync(path).size - before;
      if (background) expect(grown).toBeGreaterThan(250 * 4096);
      else expect(grown).toBe(0);
      stopBackgroundCheckpoints(database);
      database.close();
    }
  });

  it('keep the WAL bounded under steady commits, and leave no WAL behind once closed', async () => {
    const path = temporaryPath();
    const database = open(path, true);
    // About 12,000 WAL pages in all.
    await commitRows(database, 0, 6_000);
    // The writer restarts the WAL at its own late checkpoint, near the backstop's 4,000 pages (a
    // little later when the thread holds the checkpoint lock just then).
    expect(statSync(`${path}-wal`).size).toBeLessThan(6_000 * 4_120);
    stopBackgroundCheckpoints(database);
    database.close();
    const reader = new DatabaseSync(path);
    expect(reader.prepare('SELECT count(*) AS count FROM rows').get()).toEqual({ count: 6_000 });
    reader.close();
    // The thread's connection closes after the store's: the last one out removes the WAL.
    for (let waited = 0; existsSync(`${path}-wal`) && waited < 2_000; waited += 20) await nextTurns(20);
    expect(existsSync(`${path}-wal`)).toBe(false);
  });

  it('let a truncating checkpoint (forget-me) wait out another connection that holds the WAL', async () => {
    const path = temporaryPath();
    const database = open(path, true);
    await commitRows(database, 0, 200);
    inTransaction(database, () => database.exec('DELETE FROM rows'));
    // Another thread reads an old snapshot for 150 ms, as the checkpoint thread's connection can.
    const reader = new Worker(
      `const { DatabaseSync } = require('node:sqlite');
       const { parentPort, workerData } = require('node:worker_threads');
       const database = new DatabaseSync(workerData);
       database.exec('BEGIN');
       database.prepare('SELECT count(*) FROM rows').get();
       parentPort.postMessage('reading');
       setTimeout(() => { database.exec('COMMIT'); database.close(); }, 150);`,
      { eval: true, workerData: path },
    );
    await new Promise((resolve) => reader.once('message', resolve));
    checkpointAndTruncate(database);
    expect(statSync(`${path}-wal`).size).toBe(0);
    await new Promise((resolve) => reader.once('exit', resolve));
    stopBackgroundCheckpoints(database);
    database.close();
  });

  it('lose no acknowledged commit when the process is killed mid-checkpoint', async () => {
    const path = temporaryPath();
    const child = spawn(process.execPath, [
      fileURLToPath(new URL('./testing/commit-until-killed.ts', import.meta.url)),
      path,
    ]);
    let acknowledged = -1;
    child.stdout.setEncoding('utf8');
    let buffered = '';
    child.stdout.on('data', (chunk: string) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) if (line) acknowledged = Number(line);
    });
    // Well past several background checkpoints (one per 50 ms at most while commits come).
    while (acknowledged < 3_000) await nextTurns(20);
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    const reopened = open(path, false);
    const { count, newest } = reopened
      .prepare('SELECT count(*) AS count, max(n) AS newest FROM rows')
      .get() as {
      count: number;
      newest: number;
    };
    reopened.close();
    expect(newest).toBeGreaterThanOrEqual(acknowledged);
    expect(count).toBe(newest + 1);
  });
});
