import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { compilesOf } from './compiles-of.ts';

describe('compilesOf', () => {
  const database = new DatabaseSync(':memory:');
  database.exec('CREATE TABLE t (k TEXT, n INTEGER); CREATE INDEX t_k ON t (k, n)');

  it('counts a compile, not a run, and leaves transaction control out', () => {
    const read = database.prepare('SELECT n FROM t WHERE k = ?');
    expect(compilesOf(database, () => database.prepare('SELECT n FROM t'))).toBeGreaterThan(0);
    expect(compilesOf(database, () => read.all('a'))).toBe(0);
    expect(compilesOf(database, () => database.exec('BEGIN; COMMIT'))).toBe(0);
  });

  it('sees the compile SQLite 3.54 repeats on every run of an ordered read by a bound value, and none with `+?`', () => {
    const bound = database.prepare('SELECT n FROM t WHERE k = ? ORDER BY n');
    const plus = database.prepare('SELECT n FROM t WHERE k = +? ORDER BY n');
    bound.all('a');
    plus.all('a');
    expect(compilesOf(database, () => bound.all('a'))).toBeGreaterThan(0);
    expect(compilesOf(database, () => plus.all('a'))).toBe(0);
  });
});
