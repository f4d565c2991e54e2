import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { contentHash } from '../model/content-hash.ts';
import type { Memory } from '../model/memory.ts';
import { DAY_MS } from '../ranking/memory-scoring.ts';
import { STANDING_KINDS } from '../ranking/standing-kinds.ts';
import { compareStanding } from '../ranking/standing-order.ts';
import { seededRandom } from '../testing/seeded-random.ts';
import { memoryValues } from './memory-rows.ts';
import { openMemoryDatabase } from './open-memory-database.ts';
import { createSqliteMemoryStore, type SqliteMemoryStore } from './sqlite-memory-store.ts';
import { StandingFactsCache } from './standing-facts-cache.ts';

const NOW = Date.UTC(2026, 5, 1);
const random = seededRandom(41);

function memory(userId: string, index: number): Memory {
  const kind = STANDING_KINDS[Math.floor(random() * STANDING_KINDS.length)]!;
  // Whole days over a year, so equal times (ties) are common.
  const updatedAt = NOW - Math.floor(random() * 365) * DAY_MS;
  const content = `${userId} memory ${index}`;
  return {
    id: randomUUID(),
    userId,
    scope: 'user',
    content,
    ...kind,
    createdAt: updatedAt,
    updatedAt,
    hash: contentHash(content),
    metadata: { index },
  };
}

/** What the file holds: every user-scope memory of the person read by SQL and sorted. */
async function expected(store: SqliteMemoryStore, userId: string, at: number, limit: number) {
  const everything = await store.list({ userId, scopes: ['user'], limit: 10_000, offset: 0 });
  return everything.sort(compareStanding(at)).slice(0, limit);
}

// The standing facts read again on every turn are kept per person: these check that every read
// still answers exactly what the file holds, whole memories included, through the store's own
// writes, the lastUsedAt it records each turn, and another connection's commits.
describe('the standing facts kept by the SQLite store', () => {
  const stores: SqliteMemoryStore[] = [];
  let directory: string | undefined;
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    if (directory) rmSync(directory, { recursive: true, force: true });
    directory = undefined;
  });
  const open = (path: string, options: { usesWriteIntervalMs?: number } = {}) => {
    const store = createSqliteMemoryStore({ path, ...options });
    stores.push(store);
    return store;
  };
  const check = async (store: SqliteMemoryStore, userId: string) => {
    // Later times move the order between kinds (recency fades, the prior stays): deeper rows.
    for (const at of [NOW, NOW + 60 * DAY_MS, NOW + 2 * 365 * DAY_MS, NOW]) {
      for (const limit of [3, 12, 40, 12]) {
        const read = await store.standing({ userId, limit, order: compareStanding(at) });
        expect(read).toEqual(await expected(store, userId, at, limit));
      }
    }
  };

  it('answers what the file holds through the store’s own writes and recorded uses', async () => {
    const store = open(':memory:');
    const ada = Array.from({ length: 150 }, (_, index) => memory('ada', index));
    await store.insertMany({
      items: [...ada, ...Array.from({ length: 50 }, (_, index) => memory('bob', index))].map((item) => ({
        memory: item,
      })),
    });
    await check(store, 'ada');
    await check(store, 'bob');

    // Used memories take their new time; a returned memory is a copy, never the kept one.
    const picked = await store.standing({ userId: 'ada', limit: 5, order: compareStanding(NOW) });
    await store.markUsed({ ids: picked.map((item) => item.id), at: NOW + 1 });
    picked[0]!.content = 'changed by a caller';
    picked[1]!.metadata.index = -1;
    await check(store, 'ada');
    const again = await store.standing({ userId: 'ada', limit: 5, order: compareStanding(NOW) });
    expect(again.map((item) => item.lastUsedAt)).toEqual(picked.map(() => NOW + 1));

    // The person's own adds, edits (kind and time) and deletes.
    const newest = { ...memory('ada', 1_000), updatedAt: NOW, category: 'event' as const };
    await store.insert({ memory: newest });
    await check(store, 'ada');
    await store.update({
      memory: { ...ada[0]!, category: 'preference', source: 'user_explicit', updatedAt: NOW },
    });
    await check(store, 'ada');
    await store.update({ memory: { ...ada[1]!, scope: 'session', sessionId: 'web:1' } });
    await check(store, 'ada');
    await store.delete({ userId: 'ada', id: picked[2]!.id });
    await check(store, 'ada');
    await check(store, 'bob');
    await store.reset({ userId: 'ada' });
    expect(await store.standing({ userId: 'ada', limit: 10, order: compareStanding(NOW) })).toEqual([]);
    await store.insert({ memory: memory('ada', 2_000) });
    await check(store, 'ada');
  });

  it('sees another connection’s commits at once: new memories, changed kinds, recorded uses', async () => {
    directory = mkdtempSync(join(tmpdir(), 'nexus-standing-'));
    const path = join(directory, 'memory.db');
    const gateway = open(path);
    // Writes each recorded use at once (by default a store writes them together, later).
    const other = open(path, { usesWriteIntervalMs: 0 });
    const ada = Array.from({ length: 80 }, (_, index) => memory('ada', index));
    await gateway.insertMany({ items: ada.map((item) => ({ memory: item })) });
    await check(gateway, 'ada');

    await other.insert({ memory: { ...memory('ada', 500), updatedAt: NOW } });
    await check(gateway, 'ada');
    // Only the kind changes: no word or scope, so nothing but data_version tells.
    const top = (await gateway.standing({ userId: 'ada', limit: 1, order: compareStanding(NOW) }))[0]!;
    await other.update({
      memory: { ...top, category: 'event', source: 'inferred', updatedAt: NOW - 900 * DAY_MS },
    });
    await check(gateway, 'ada');
    const used = await gateway.standing({ userId: 'ada', limit: 4, order: compareStanding(NOW) });
    await other.markUsed({ ids: used.map((item) => item.id), at: NOW + 7 });
    expect(await gateway.standing({ userId: 'ada', limit: 4, order: compareStanding(NOW) })).toEqual(
      used.map((item) => ({ ...item, lastUsedAt: NOW + 7 })),
    );
    await other.reset({ userId: 'ada' });
    expect(await gateway.standing({ userId: 'ada', limit: 4, order: compareStanding(NOW) })).toEqual([]);
  });

  it('merges kept rows without SQL until a person changes or is evicted, one person never another’s', () => {
    const { database } = openMemoryDatabase({ path: ':memory:' });
    const insert = database.prepare(
      `INSERT INTO memories (id, user_id, scope, session_id, content, category, source, created_at,
         updated_at, last_used_at, hash, metadata) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    for (let index = 0; index < 60; index += 1) {
      insert.run(...memoryValues(memory('ada', index)));
      insert.run(...memoryValues(memory('bob', index)));
    }
    let statements = 0;
    const statement = (sql: string) => {
      statements += 1;
      return database.prepare(sql);
    };
    const cache = new StandingFactsCache({ dataVersion: () => 1, maxPeople: 1 });
    const everything = (userId: string) =>
      database
        .prepare("SELECT id, updated_at, category, source FROM memories WHERE user_id = ? AND scope = 'user'")
        .all(userId) as Array<{
        id: string;
        updated_at: number;
        category: Memory['category'];
        source: Memory['source'];
      }>;
    const expectedIds = (userId: string, limit: number) =>
      everything(userId)
        .map((row) => ({ id: row.id, updatedAt: row.updated_at, category: row.category, source: row.source }))
        .sort(compareStanding(NOW))
        .slice(0, limit)
        .map((row) => row.id);
    const read = (userId: string, limit = 10) =>
      cache.read(statement, { userId, limit, order: compareStanding(NOW) }).map((item) => item.id);

    expect(read('ada')).toEqual(expectedIds('ada', 10));
    const first = statements;
    expect(first).toBeGreaterThan(0);
    expect(read('ada')).toEqual(expectedIds('ada', 10));
    expect(read('ada', 5)).toEqual(expectedIds('ada', 5));
    expect(statements).toBe(first);
    // Bob's read evicts Ada (one person kept); each answers their own memories only.
    expect(read('bob')).toEqual(expectedIds('bob', 10));
    expect(statements).toBeGreaterThan(first);
    const afterBob = statements;
    expect(read('ada')).toEqual(expectedIds('ada', 10));
    expect(statements).toBeGreaterThan(afterBob);
    // A change to Ada's rows, told: read again.
    database.prepare("UPDATE memories SET category = 'event', updated_at = ? WHERE user_id = 'ada'").run(NOW);
    cache.changed('ada');
    expect(read('ada')).toEqual(expectedIds('ada', 10));
    database.close();
  });
});
