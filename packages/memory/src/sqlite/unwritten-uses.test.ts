import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { contentHash } from '../model/content-hash.ts';
import type { Memory } from '../model/memory.ts';
import { compareStanding } from '../ranking/standing-order.ts';
import {
  createSqliteMemoryStore,
  type SqliteMemoryStore,
  type SqliteMemoryStoreOptions,
} from './sqlite-memory-store.ts';

const NOW = Date.UTC(2026, 0, 1);

function memory(userId: string, content: string, sessionId?: string): Memory {
  const created: Memory = {
    id: randomUUID(),
    userId,
    scope: sessionId ? 'session' : 'user',
    content,
    category: 'fact',
    source: 'user_explicit',
    createdAt: NOW,
    updatedAt: NOW,
    hash: contentHash(content),
    metadata: {},
  };
  if (sessionId) created.sessionId = sessionId;
  return created;
}

// `markUsed` is recorded in process and written later, together: these check that the store's
// own answers include every use at once, and what the file holds and when.
describe('the uses the SQLite store records and writes later', () => {
  const stores: SqliteMemoryStore[] = [];
  let directory: string;
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    rmSync(directory, { recursive: true, force: true });
  });
  const open = (options: Partial<SqliteMemoryStoreOptions> = {}) => {
    directory ??= mkdtempSync(join(tmpdir(), 'nexus-uses-'));
    const store = createSqliteMemoryStore({ path: join(directory, 'memory.db'), ...options });
    stores.push(store);
    return store;
  };
  const fileTime = async (reader: SqliteMemoryStore, item: Memory) =>
    (await reader.get({ userId: item.userId, id: item.id }))?.lastUsedAt;

  it('answers every read with the latest use while the file still holds the one before', async () => {
    directory = mkdtempSync(join(tmpdir(), 'nexus-uses-'));
    const gateway = open();
    const reader = open({ usesWriteIntervalMs: 0 });
    const told = memory('ada', 'Keeps bees in the garden');
    const linked = memory('ada', 'Sells honey at the market', 'web:1');
    await gateway.insertMany({ items: [{ memory: told }, { memory: linked }] });
    await reader.markUsed({ ids: [told.id], at: NOW + 5 });
    await gateway.markUsed({ ids: [told.id, linked.id], at: NOW + 3 });
    await gateway.markUsed({ ids: [linked.id], at: NOW + 9 });

    // Never back in time: the file's later use stands; each memory takes its newest use.
    const expected = (item: Memory) => (item.id === told.id ? NOW + 5 : NOW + 9);
    expect((await gateway.get({ userId: 'ada', id: told.id }))?.lastUsedAt).toBe(NOW + 5);
    expect((await gateway.findByHash({ userId: 'ada', hash: linked.hash }))?.lastUsedAt).toBe(NOW + 9);
    const listed = await gateway.list({ userId: 'ada', limit: 10, offset: 0 });
    for (const item of listed) expect(item.lastUsedAt).toBe(expected(item));
    const hits = await gateway.search({ userId: 'ada', text: 'bees honey', limit: 10 });
    expect(hits).toHaveLength(2);
    for (const hit of hits) expect(hit.memory.lastUsedAt).toBe(expected(hit.memory));
    const session = await gateway.search({ userId: 'ada', text: 'honey', sessionId: 'web:1', limit: 10 });
    expect(session.map((hit) => hit.memory.lastUsedAt)).toEqual([NOW + 9]);
    expect((await gateway.sessionMemories({ sessionId: 'web:1' })).map((item) => item.lastUsedAt)).toEqual([
      NOW + 9,
    ]);
    const standing = await gateway.standing({ userId: 'ada', limit: 10, order: compareStanding(NOW) });
    expect(standing.map((item) => item.lastUsedAt)).toEqual([NOW + 5]);

    // Not written yet: another connection reads the file as it was.
    expect(await fileTime(reader, told)).toBe(NOW + 5);
    expect(await fileTime(reader, linked)).toBeUndefined();
    await gateway.close();
    expect(await fileTime(reader, told)).toBe(NOW + 5);
    expect(await fileTime(reader, linked)).toBe(NOW + 9);
  });

  it('writes them once the interval has passed, a few hundred per pass of the event loop', async () => {
    const gateway = open({ usesWriteIntervalMs: 20 });
    const reader = open({ usesWriteIntervalMs: 0 });
    const items = Array.from({ length: 300 }, (_, index) => memory('ada', `Fact number ${index}`));
    await gateway.insertMany({ items: items.map((item) => ({ memory: item })) });
    for (const [turn, item] of items.entries()) await gateway.markUsed({ ids: [item.id], at: NOW + turn });
    expect(await fileTime(reader, items[0]!)).toBeUndefined();
    await sleep(100);
    const written = await Promise.all(items.map((item) => fileTime(reader, item)));
    expect(written).toEqual(items.map((_, turn) => NOW + turn));
  });

  it('leaves no recorded use to land on a memory imported later under a forgotten id', async () => {
    const gateway = open();
    const deleted = memory('ada', 'Keeps bees in the garden');
    const reset = memory('bob', 'Bakes sourdough');
    await gateway.insertMany({ items: [{ memory: deleted }, { memory: reset }] });
    await gateway.markUsed({ ids: [deleted.id, reset.id], at: NOW + 1 });
    await gateway.delete({ userId: 'ada', id: deleted.id });
    await gateway.reset({ userId: 'bob' });
    await gateway.insertMany({ items: [{ memory: deleted }, { memory: reset }] });
    expect((await gateway.get({ userId: 'ada', id: deleted.id }))?.lastUsedAt).toBeUndefined();
    expect((await gateway.get({ userId: 'bob', id: reset.id }))?.lastUsedAt).toBeUndefined();
  });
});
