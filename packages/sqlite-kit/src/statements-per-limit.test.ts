import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { statementsPerLimit } from './statements-per-limit.ts';

describe('statementsPerLimit', () => {
  const database = new DatabaseSync(':memory:');
  database.exec('CREATE TABLE t (n INTEGER PRIMARY KEY); INSERT INTO t VALUES (1), (2), (3), (4);');
  const newest = statementsPerLimit(database, (limit) => `SELECT n FROM t ORDER BY n DESC LIMIT ${limit}`);

  it('prepares one statement per limit and reuses it', () => {
    expect(newest(2).all()).toEqual([{ n: 4 }, { n: 3 }]);
    expect(newest(3).all()).toEqual([{ n: 4 }, { n: 3 }, { n: 2 }]);
    expect(newest(2)).toBe(newest(2));
    expect(newest(0).all()).toEqual([]);
  });

  it('refuses anything but a whole number, since the limit is written into the SQL', () => {
    for (const limit of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])
      expect(() => newest(limit)).toThrow(RangeError);
    expect(() => newest('1; DROP TABLE t' as unknown as number)).toThrow(RangeError);
    expect(newest(4).all()).toHaveLength(4);
  });
});
