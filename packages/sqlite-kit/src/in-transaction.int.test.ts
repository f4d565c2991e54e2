import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inTransaction } from './in-transaction.ts';
import { openSqliteDatabase } from './open-sqlite-database.ts';
import { mountSmallVolume, SMALL_VOLUME_NEEDS_ROOT, type SmallVolume } from './testing/index.ts';

// A store on a volume that really is full: an 8 MiB tmpfs, filled up. Mounting needs root; as
// anyone else this is skipped (in-transaction.test.ts gets a real SQLITE_FULL from max_page_count).

const MIB = 1024 * 1024;
let volume: SmallVolume | undefined;
beforeAll(async () => {
  volume = await mountSmallVolume(8, 'full-disk');
});
afterAll(async () => {
  await volume?.remove();
});

describe('a write transaction on a full volume', () => {
  it('fails with "database or disk is full", keeps what was committed, and works again once there is room', async (context) => {
    if (!volume) context.skip(SMALL_VOLUME_NEEDS_ROOT);
    const database = openSqliteDatabase({
      path: join(volume!.path, 'store.sqlite'),
      migrations: ['CREATE TABLE rows (id INTEGER PRIMARY KEY, body BLOB NOT NULL)'],
      storeName: 'test store',
    });
    try {
      const insert = database.prepare('INSERT INTO rows (body) VALUES (?)');
      inTransaction(database, () => insert.run(Buffer.alloc(1000, 1)));
      await writeFile(join(volume!.path, 'filler'), Buffer.alloc(8 * MIB - 64 * 1024));

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

      await rm(join(volume!.path, 'filler'));
      inTransaction(database, () => insert.run(Buffer.alloc(4000, 3)));
      expect(database.prepare('SELECT count(*) AS n FROM rows').get()).toEqual({ n: 2 });
    } finally {
      database.close();
    }
  });
});
