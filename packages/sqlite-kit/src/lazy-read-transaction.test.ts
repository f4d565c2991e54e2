import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inTransaction } from './in-transaction.ts';
import { LazyReadTransaction } from './lazy-read-transaction.ts';

describe('LazyReadTransaction', () => {
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

  it('reads one snapshot from its first statement, ends it, and sees a later commit on the next read', () => {
    const reader = connect();
    const writer = connect();
    const reads = new LazyReadTransaction(reader);
    const count = reader.prepare('SELECT count(*) AS n FROM rows');
    const read = () => {
      reads.beforeStatement();
      return (count.get() as { n: number }).n;
    };
    const seen = reads.run(() => {
      // Nothing read yet: no transaction, so a commit now is seen by the first read.
      expect(reader.isTransaction).toBe(false);
      writer.exec('INSERT INTO rows DEFAULT VALUES');
      const first = read();
      expect(reader.isTransaction).toBe(true);
      writer.exec('INSERT INTO rows DEFAULT VALUES');
      return [first, read(), reads.run(read)];
    });
    expect(seen).toEqual([1, 1, 1]);
    expect(reader.isTransaction).toBe(false);
    expect(reads.run(read)).toBe(2);
    // Outside `run` a statement takes no transaction.
    read();
    expect(reader.isTransaction).toBe(false);
  });

  it('adds nothing inside an open transaction, and ends its own when the work throws', () => {
    const database = connect();
    const reads = new LazyReadTransaction(database);
    inTransaction(database, () => {
      database.exec('INSERT INTO rows DEFAULT VALUES');
      reads.run(() => reads.beforeStatement());
      expect(database.isTransaction).toBe(true);
    });
    expect(() =>
      reads.run(() => {
        reads.beforeStatement();
        throw new Error('failed read');
      }),
    ).toThrow('failed read');
    expect(database.isTransaction).toBe(false);
  });
});
