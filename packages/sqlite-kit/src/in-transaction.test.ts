import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { aloneInTransaction } from './alone-in-transaction.ts';
import { GroupCommit } from './group-commit.ts';
import { inSavepoint } from './in-savepoint.ts';
import { inTransaction } from './in-transaction.ts';

// A full disk is a real SQLITE_FULL: `max_page_count` caps the file, and SQLite fails the write
// and rolls the whole transaction back exactly as it does when the volume has no space left.

const ROW = Buffer.alloc(2000, 1);

function cappedDatabase(): DatabaseSync {
  const database = new DatabaseSync(':memory:');
  database.exec('CREATE TABLE rows (id INTEGER PRIMARY KEY, body BLOB NOT NULL)');
  database.exec('PRAGMA max_page_count = 12');
  return database;
}

function count(database: DatabaseSync): number {
  return Number((database.prepare('SELECT count(*) AS n FROM rows').get() as { n: number }).n);
}

describe('inTransaction', () => {
  it('reports a full disk as SQLite said it, not as a failed ROLLBACK, and stays usable', () => {
    const database = cappedDatabase();
    const insert = database.prepare('INSERT INTO rows (body) VALUES (?)');
    let thrown: unknown;
    try {
      inTransaction(database, () => {
        for (let index = 0; index < 50; index += 1) insert.run(ROW);
      });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ errcode: 13, message: 'database or disk is full' });
    expect(database.isTransaction).toBe(false);
    expect(count(database)).toBe(0);
    database.exec('PRAGMA max_page_count = 1000');
    inTransaction(database, () => insert.run(ROW));
    expect(count(database)).toBe(1);
  });

  it('rolls back a COMMIT that failed with the transaction still open, keeping the COMMIT error', () => {
    const database = new DatabaseSync(':memory:');
    database.exec(`PRAGMA foreign_keys = ON;
      CREATE TABLE people (id INTEGER PRIMARY KEY);
      CREATE TABLE notes (person INTEGER REFERENCES people (id) DEFERRABLE INITIALLY DEFERRED)`);
    expect(() => inTransaction(database, () => database.exec('INSERT INTO notes VALUES (7)'))).toThrow(
      'FOREIGN KEY constraint failed',
    );
    expect(database.isTransaction).toBe(false);
    expect(database.prepare('SELECT count(*) AS n FROM notes').get()).toEqual({ n: 0 });
  });

  it('undoes the writes of work that threw and rethrows its error', () => {
    const database = cappedDatabase();
    const failure = new Error('refused');
    expect(() =>
      inTransaction(database, () => {
        database.prepare('INSERT INTO rows (body) VALUES (?)').run(ROW);
        throw failure;
      }),
    ).toThrow(failure);
    expect(count(database)).toBe(0);
  });
});

describe('a group commit on a full disk', () => {
  it('fails every queued write with SQLITE_FULL and leaves none of them half-written', async () => {
    const database = cappedDatabase();
    const insert = database.prepare('INSERT INTO rows (body) VALUES (?)');
    const writes = new GroupCommit<number, unknown>((sizes) =>
      inTransaction(database, () =>
        sizes.map((rows) =>
          inSavepoint(database, () => {
            for (let index = 0; index < rows; index += 1) insert.run(ROW);
          }),
        ),
      ),
    );
    const outcomes = await Promise.allSettled([writes.add(1), writes.add(50), writes.add(1)]);
    for (const outcome of outcomes) {
      expect(outcome).toMatchObject({ status: 'rejected', reason: { message: 'database or disk is full' } });
    }
    expect(database.isTransaction).toBe(false);
    expect(count(database)).toBe(0);
  });

  it('still lets one refused item fail alone when the transaction survives it', async () => {
    const database = cappedDatabase();
    const insert = database.prepare('INSERT INTO rows (id, body) VALUES (?, ?)');
    const writes = new GroupCommit<number, unknown>((ids) =>
      inTransaction(database, () => ids.map((id) => inSavepoint(database, () => insert.run(id, ROW)))),
    );
    const outcomes = await Promise.allSettled([writes.add(1), writes.add(1), writes.add(2)]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(outcomes[1]).toMatchObject({
      reason: { message: expect.stringContaining('UNIQUE constraint failed') },
    });
    expect(count(database)).toBe(2);
  });
});

describe('a group commit item of one statement, without a savepoint', () => {
  it('fails alone when SQLite refuses its statement, and the others commit', async () => {
    const database = cappedDatabase();
    const insert = database.prepare('INSERT INTO rows (id, body) VALUES (?, ?)');
    const statements: string[] = [];
    const writes = new GroupCommit<number, unknown>((ids) =>
      inTransaction(database, () =>
        ids.map((id) =>
          aloneInTransaction(database, () => {
            statements.push(`insert ${id}`);
            return insert.run(id, ROW).changes;
          }),
        ),
      ),
    );
    const outcomes = await Promise.allSettled([writes.add(1), writes.add(1), writes.add(2)]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(outcomes[1]).toMatchObject({
      reason: { message: expect.stringContaining('UNIQUE constraint failed') },
    });
    expect(statements).toEqual(['insert 1', 'insert 1', 'insert 2']);
    expect(count(database)).toBe(2);
  });

  it('fails every item on a full disk that ends the transaction', async () => {
    const database = cappedDatabase();
    const insert = database.prepare('INSERT INTO rows (body) VALUES (?)');
    const writes = new GroupCommit<number, unknown>((items) =>
      inTransaction(database, () => items.map(() => aloneInTransaction(database, () => insert.run(ROW)))),
    );
    const outcomes = await Promise.allSettled(Array.from({ length: 50 }, (_, index) => writes.add(index)));
    for (const outcome of outcomes) {
      expect(outcome).toMatchObject({ status: 'rejected', reason: { message: 'database or disk is full' } });
    }
    expect(database.isTransaction).toBe(false);
    expect(count(database)).toBe(0);
  });

  it('fails alone when a full disk undid only its statement, leaving no row of it', async () => {
    const database = cappedDatabase();
    const insert = database.prepare('INSERT INTO rows (body) VALUES (?)');
    // One statement writing far more than the file may hold: SQLite undoes that statement alone.
    const flood = database.prepare(
      `WITH RECURSIVE n (i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 50)
       INSERT INTO rows (body) SELECT zeroblob(2000) FROM n`,
    );
    const writes = new GroupCommit<'row' | 'flood', unknown>((items) =>
      inTransaction(database, () =>
        items.map((item) =>
          aloneInTransaction(database, () => (item === 'row' ? insert.run(ROW) : flood.run())),
        ),
      ),
    );
    const outcomes = await Promise.allSettled([writes.add('row'), writes.add('flood'), writes.add('row')]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(outcomes[1]).toMatchObject({ reason: { message: 'database or disk is full' } });
    expect(count(database)).toBe(2);
  });
});
