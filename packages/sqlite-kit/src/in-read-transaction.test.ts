import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inReadTransaction } from './in-read-transaction.ts';
import { inTransaction } from './in-transaction.ts';

describe('inReadTransaction', () => {
  let directory = '';
  const open: DatabaseSync[] = [];
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'nexus-read-transaction-'));
  });
  const connect = () => {
    const database = new DatabaseSync(join(directory, 'rows.db'));
    database.exec('PRAGMA journal_mode = WAL; CREATE TABLE IF NOT EXISTS rows (id INTEGER PRIMARY KEY)');
    open.push(database);
    return database;
  };
  afterEach(() => {
    for (const database of open.splice(0)) database.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('reads one snapshot, ends it, and sees another connection’s commit on the next call', () => {
    const reader = connect();
    const writer = connect();
    const count = reader.prepare('SELECT count(*) AS n FROM rows');
    const read = () => (count.get() as { n: number }).n;
    const seen = inReadTransaction(reader, () => {
      expect(reader.isTransaction).toBe(true);
      const before = read();
      writer.exec('INSERT INTO rows DEFAULT VALUES');
      return [before, read()];
    });
    expect(seen).toEqual([0, 0]);
    expect(reader.isTransaction).toBe(false);
    expect(inReadTransaction(reader, read)).toBe(1);
    // The writer was never held up: a read transaction in WAL mode blocks no one.
    inTransaction(writer, () => writer.exec('INSERT INTO rows DEFAULT VALUES'));
    expect(read()).toBe(2);
  });

  it('runs inside an open transaction as part of it, and ends its own when the work throws', () => {
    const database = connect();
    inTransaction(database, () => {
      database.exec('INSERT INTO rows DEFAULT VALUES');
      const n = inReadTransaction(database, () => database.prepare('SELECT count(*) AS n FROM rows').get());
      expect(n).toEqual({ n: 1 });
      expect(database.isTransaction).toBe(true);
    });
    expect(() =>
      inReadTransaction(database, () => {
        throw new Error('failed read');
      }),
    ).toThrow('failed read');
    expect(database.isTransaction).toBe(false);
  });
});
