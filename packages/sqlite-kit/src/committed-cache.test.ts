import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { CommittedCache } from './committed-cache.ts';
import { committedVersionReader } from './committed-version.ts';

const directory = mkdtempSync(join(tmpdir(), 'nexus-committed-cache-'));
const connections: DatabaseSync[] = [];
afterEach(() => {
  for (const connection of connections.splice(0)) connection.close();
});
process.on('exit', () => rmSync(directory, { recursive: true, force: true }));

function open(name: string): DatabaseSync {
  const connection = new DatabaseSync(join(directory, name));
  connections.push(connection);
  connection.exec('PRAGMA journal_mode = WAL; CREATE TABLE IF NOT EXISTS t (k TEXT PRIMARY KEY, v INTEGER)');
  return connection;
}
const nextPass = () => new Promise((resolve) => setImmediate(resolve));

describe('CommittedCache', () => {
  it('reads a key once, follows its own writes, and forgets everything past its bound', () => {
    const cache = new CommittedCache<number>(open('own.sqlite'), { maxEntries: 2 });
    let reads = 0;
    const read = () => {
      reads += 1;
      return 10;
    };
    expect(cache.get('a', read)).toBe(10);
    expect(cache.get('a', read)).toBe(10);
    expect(reads).toBe(1);
    cache.update('a', (value) => value + 5);
    cache.update('b', (value) => value + 5);
    expect(cache.get('a', read)).toBe(15);
    expect(cache.get('b', read)).toBe(10);
    expect(reads).toBe(2);
    cache.set('c', 1);
    expect(cache.get('a', read)).toBe(10);
    expect(reads).toBe(3);
  });

  it("drops what it holds once another connection committed, from the event loop's next pass", async () => {
    const ours = open('shared.sqlite');
    const theirs = open('shared.sqlite');
    const cache = new CommittedCache<number | null>(ours);
    const read = () =>
      (ours.prepare('SELECT v FROM t WHERE k = ?').get('a') as { v: number } | undefined)?.v ?? null;
    expect(cache.get('a', read)).toBeNull();
    theirs.prepare('INSERT INTO t VALUES (?, ?)').run('a', 7);
    await nextPass();
    expect(cache.get('a', read)).toBe(7);
    // Its own commits do not move data_version: the owner keeps the copy in step.
    ours.prepare('UPDATE t SET v = 8 WHERE k = ?').run('a');
    await nextPass();
    expect(cache.get('a', read)).toBe(7);
  });

  it("shares one reading of the committed version per pass among a connection's readers", async () => {
    const connection = open('shared.sqlite');
    const other = open('shared.sqlite');
    const first = committedVersionReader(connection);
    const before = first();
    other.exec("INSERT INTO t VALUES ('x', 1)");
    // Another reader of the same connection, in the same pass: the pass's reading, not a new one.
    expect(committedVersionReader(connection)()).toBe(before);
    expect(committedVersionReader(connection)({ fresh: true })).not.toBe(before);
    await nextPass();
    expect(first()).toBe(committedVersionReader(connection)());
    expect(first()).not.toBe(before);
  });
});
