import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { inTransaction } from './in-transaction.ts';
import { openSqliteDatabase } from './open-sqlite-database.ts';

const migrations = [
  'CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)',
  'ALTER TABLE notes ADD COLUMN author TEXT',
];
const directories: string[] = [];

async function freshPath(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'nexus-sqlite-kit-'));
  directories.push(directory);
  return join(directory, 'nested', 'store.sqlite');
}

afterEach(async () => {
  for (const directory of directories.splice(0)) await rm(directory, { recursive: true, force: true });
});

describe('openSqliteDatabase', () => {
  it('creates the file owner-only, in WAL, with every migration run once', async () => {
    const path = await freshPath();
    const database = openSqliteDatabase({ path, migrations, storeName: 'note store' });
    database.prepare('INSERT INTO notes (text, author) VALUES (?, ?)').run('hello', 'ana');
    database.close();
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(join(path, '..'))).mode & 0o777).toBe(0o700);
    const again = openSqliteDatabase({ path, migrations, storeName: 'note store' });
    expect(again.prepare('PRAGMA user_version').get()).toEqual({ user_version: 2 });
    expect(again.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
    expect(again.prepare('SELECT text, author FROM notes').all()).toEqual([{ text: 'hello', author: 'ana' }]);
    again.close();
  });

  it('runs only the new migrations of an older file', async () => {
    const path = await freshPath();
    openSqliteDatabase({ path, migrations: migrations.slice(0, 1), storeName: 'note store' }).close();
    const database = openSqliteDatabase({ path, migrations, storeName: 'note store' });
    expect(database.prepare('PRAGMA user_version').get()).toEqual({ user_version: 2 });
    database.close();
  });

  it('refuses a file written by a newer Nexus and leaves it as it was', async () => {
    const path = await freshPath();
    openSqliteDatabase({ path, migrations, storeName: 'note store' }).close();
    expect(() =>
      openSqliteDatabase({ path, migrations: migrations.slice(0, 1), storeName: 'note store' }),
    ).toThrow(/note store was written by a newer Nexus \(schema 2, this one knows 1\)/);
    const database = openSqliteDatabase({ path, migrations, storeName: 'note store' });
    expect(database.prepare('PRAGMA user_version').get()).toEqual({ user_version: 2 });
    database.close();
  });

  it('names the store and the step when a migration fails, and keeps the earlier steps', async () => {
    const path = await freshPath();
    const broken = [...migrations, 'CREATE TABLE notes (id INTEGER)'];
    expect(() => openSqliteDatabase({ path, migrations: broken, storeName: 'note store' })).toThrow(
      'note store migration 3 failed.',
    );
    const database = openSqliteDatabase({ path, migrations, storeName: 'note store' });
    expect(database.prepare('PRAGMA user_version').get()).toEqual({ user_version: 2 });
    database.close();
  });
});

describe('inTransaction', () => {
  it('commits the work, rolls all of it back on a throw, and nests by running inside', () => {
    const database = openSqliteDatabase({ path: ':memory:', migrations, storeName: 'note store' });
    const insert = database.prepare('INSERT INTO notes (text) VALUES (?)');
    inTransaction(database, () => {
      insert.run('one');
      inTransaction(database, () => insert.run('two'));
    });
    expect(() =>
      inTransaction(database, () => {
        insert.run('three');
        throw new Error('no');
      }),
    ).toThrow('no');
    expect(database.isTransaction).toBe(false);
    expect(database.prepare('SELECT text FROM notes ORDER BY id').all()).toEqual([
      { text: 'one' },
      { text: 'two' },
    ]);
    database.close();
  });
});
