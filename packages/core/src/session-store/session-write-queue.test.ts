import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { SessionWriteQueue } from './session-write-queue.ts';

function database(): DatabaseSync {
  const opened = new DatabaseSync(':memory:');
  opened.exec('CREATE TABLE rows (id INTEGER PRIMARY KEY, note TEXT NOT NULL)');
  return opened;
}

function ids(opened: DatabaseSync): number[] {
  return (opened.prepare('SELECT id FROM rows ORDER BY id').all() as { id: number }[]).map((row) => row.id);
}

/** Counts the statements run on the connection, by their text. */
function counted(opened: DatabaseSync): Map<string, number> {
  const counts = new Map<string, number>();
  const prepare = opened.prepare.bind(opened);
  opened.prepare = (sql: string) => {
    const statement = prepare(sql);
    const run = statement.run.bind(statement);
    statement.run = (...parameters: never[]) => {
      counts.set(sql, (counts.get(sql) ?? 0) + 1);
      return run(...parameters);
    };
    return statement;
  };
  return counts;
}

describe('session write queue', () => {
  it('lets a failing write of one statement, or of several, undo only itself in a shared commit', async () => {
    const opened = database();
    const counts = counted(opened);
    const insert = opened.prepare('INSERT INTO rows (id, note) VALUES (?, ?)');
    const writes = new SessionWriteQueue(opened, () => {});
    const outcomes = await Promise.allSettled([
      writes.writeOne(() => insert.run(1, 'one')),
      writes.writeOne(() => insert.run(1, 'taken')),
      writes.write(() => {
        insert.run(2, 'two');
        insert.run(3, 'three');
      }),
      writes.write(() => {
        insert.run(4, 'four');
        insert.run(2, 'taken');
      }),
      writes.writeOne(() => insert.run(5, 'five')),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    expect(ids(opened)).toEqual([1, 2, 3, 5]);
    // Savepoints only around the writes of several statements.
    expect(counts.get('SAVEPOINT group_item')).toBe(2);
  });

  it('undoes a write committed alone that threw after writing, without a savepoint', async () => {
    const opened = database();
    const counts = counted(opened);
    const insert = opened.prepare('INSERT INTO rows (id, note) VALUES (?, ?)');
    const writes = new SessionWriteQueue(opened, () => {});
    const committed: string[] = [];
    const failure = new Error('refused after writing');
    await expect(
      writes.write(
        () => {
          insert.run(1, 'one');
          throw failure;
        },
        'web:c1',
        () => committed.push('one'),
      ),
    ).rejects.toBe(failure);
    expect(ids(opened)).toEqual([]);
    expect(opened.isTransaction).toBe(false);
    await writes.write(
      () => insert.run(2, 'two'),
      'web:c1',
      () => committed.push('two'),
    );
    expect(ids(opened)).toEqual([2]);
    expect(committed).toEqual(['two']);
    expect(counts.get('SAVEPOINT group_item')).toBeUndefined();
  });
});
