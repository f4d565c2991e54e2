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
import { createSqliteMemoryStore, type SqliteMemoryStore } from './sqlite-memory-store.ts';

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
  const open = (path: string) => {
    const store = createSqliteMemoryStore({ path });
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
    const other = open(path);
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
});
