import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inTransaction } from './in-transaction.ts';
import { openSqliteDatabase } from './open-sqlite-database.ts';

// A store on a volume that really is full: an 8 MiB tmpfs, filled up. Mounting needs root; as
// anyone else this is skipped (in-transaction.test.ts gets a real SQLITE_FULL from max_page_count).

const MIB = 1024 * 1024;
const isRoot = process.getuid?.() === 0;
let mountPoint: string | undefined;

beforeAll(async () => {
  if (!isRoot) return;
  const directory = await mkdtemp(join(tmpdir(), 'nexus-full-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', directory], { stdio: 'ignore' });
    mountPoint = directory;
  } catch {
    await rm(directory, { recursive: true, force: true });
  }
});
afterAll(async () => {
  if (!mountPoint) return;
  execFileSync('umount', [mountPoint]);
  await rm(mountPoint, { recursive: true, force: true });
});

describe.runIf(isRoot)('a write transaction on a full volume', () => {
  it('fails with "database or disk is full", keeps what was committed, and works again once there is room', async (context) => {
    if (!mountPoint) context.skip();
    const database = openSqliteDatabase({
      path: join(mountPoint!, 'store.sqlite'),
      migrations: ['CREATE TABLE rows (id INTEGER PRIMARY KEY, body BLOB NOT NULL)'],
      storeName: 'test store',
    });
    try {
      const insert = database.prepare('INSERT INTO rows (body) VALUES (?)');
      inTransaction(database, () => insert.run(Buffer.alloc(1000, 1)));
      await writeFile(join(mountPoint!, 'filler'), Buffer.alloc(8 * MIB - 64 * 1024));

      let thrown: unknown;
      try {
        inTransaction(database, () => {
          for (let index = 0; index < 200; index += 1) insert.run(Buffer.alloc(4000, 2));
        });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toMatchObject({ errcode: 13, message: 'database or disk is full' });
      expect(database.isTransaction).toBe(false);
      expect(database.prepare('SELECT count(*) AS n FROM rows').get()).toEqual({ n: 1 });

      await rm(join(mountPoint!, 'filler'));
      inTransaction(database, () => insert.run(Buffer.alloc(4000, 3)));
      expect(database.prepare('SELECT count(*) AS n FROM rows').get()).toEqual({ n: 2 });
    } finally {
      database.close();
    }
  });
});
