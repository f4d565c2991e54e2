import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { rememberedStemCount } from '../lexical/person-lexical-index.ts';
import { contentHash } from '../model/content-hash.ts';
import type { Memory } from '../model/memory.ts';
import { createSqliteMemoryStore, type SqliteMemoryStore } from './sqlite-memory-store.ts';

function memory(userId: string, content: string, id: string = randomUUID()): Memory {
  const at = Date.UTC(2026, 0, 1);
  return {
    id,
    userId,
    scope: 'user',
    content,
    category: 'fact',
    source: 'user_explicit',
    createdAt: at,
    updatedAt: at,
    hash: contentHash(content),
    metadata: {},
  };
}

const found = async (store: SqliteMemoryStore, userId: string, text: string) =>
  (await store.search({ userId, text, limit: 10 })).map((hit) => hit.memory.content);

// The embedded store's lexical search runs on an in-process index per person; these check that
// it always answers what the SQLite file holds, through the store's own writes and others'.
describe('the in-process lexical index of the SQLite store', () => {
  const stores: SqliteMemoryStore[] = [];
  let directory: string | undefined;
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    if (directory) rmSync(directory, { recursive: true, force: true });
    directory = undefined;
  });
  const open = (path: string, options: Parameters<typeof createSqliteMemoryStore>[0] = { path }) => {
    const store = createSqliteMemoryStore(options);
    stores.push(store);
    return store;
  };

  it('is built once per person and follows the store’s own adds, edits and deletes', async () => {
    const store = open(':memory:');
    const kept = memory('ada', 'Keeps bees in the garden');
    await store.insert({ memory: kept });
    await store.insert({ memory: memory('ada', 'Plays the cello') });
    expect(await found(store, 'ada', 'bees')).toEqual(['Keeps bees in the garden']);
    await store.insert({ memory: memory('ada', 'Sells honey from the bees') });
    await store.update({ memory: { ...kept, content: 'Keeps goats in the garden' } });
    expect(await found(store, 'ada', 'bees')).toEqual(['Sells honey from the bees']);
    expect(await found(store, 'ada', 'goats')).toEqual(['Keeps goats in the garden']);
    await store.delete({ userId: 'ada', id: kept.id });
    expect(await found(store, 'ada', 'goats')).toEqual([]);
    for (let turn = 0; turn < 20; turn += 1) await store.markUsed({ ids: [kept.id], at: turn });
    expect(await found(store, 'ada', 'cello')).toEqual(['Plays the cello']);
    expect(store.lexicalCacheStats()).toMatchObject({ builds: 1, people: [{ userId: 'ada', memories: 2 }] });
  });

  it('leaves out an insert whose part of a group commit failed, keeping the others', async () => {
    const store = open(':memory:', { path: ':memory:', vectors: { embedderId: 'test', dimensions: 3 } });
    await store.insert({ memory: memory('ada', 'Collects stamps'), embedding: new Float32Array([1, 0, 0]) });
    expect(await found(store, 'ada', 'stamps')).toEqual(['Collects stamps']);
    // Queued together: the second fails alone (a vector of the wrong size, after its words were
    // written), inside the shared transaction, and is undone to its savepoint.
    const results = await Promise.allSettled([
      store.insert({ memory: memory('ada', 'Collects coins'), embedding: new Float32Array([0, 1, 0]) }),
      store.insert({ memory: memory('ada', 'Collects shells'), embedding: new Float32Array([0, 1]) }),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected']);
    expect(await found(store, 'ada', 'collects')).toEqual(expect.arrayContaining(['Collects coins']));
    expect(await found(store, 'ada', 'shells')).toEqual([]);
    // The index holds exactly the two stored memories (the SQL read would hide a stale third).
    expect(store.lexicalCacheStats()).toMatchObject({ builds: 1, people: [{ userId: 'ada', memories: 2 }] });
  });

  it('sees another connection’s changes, rebuilding only the person whose memories changed', async () => {
    directory = mkdtempSync(join(tmpdir(), 'nexus-lexical-'));
    const path = join(directory, 'memory.db');
    const gateway = open(path);
    // Writes each recorded use at once (by default a store writes them together, later).
    const other = open(path, { path, usesWriteIntervalMs: 0 });
    await gateway.insert({ memory: memory('ada', 'Runs marathons') });
    await gateway.insert({ memory: memory('bob', 'Bakes sourdough') });
    expect(await found(gateway, 'ada', 'marathons')).toEqual(['Runs marathons']);
    expect(await found(gateway, 'bob', 'sourdough')).toEqual(['Bakes sourdough']);
    expect(gateway.lexicalCacheStats().builds).toBe(2);

    // Another connection (the `nexus memory` commands, say) adds for Ada and forgets Bob.
    await other.insert({ memory: memory('ada', 'Runs a running club on Sundays') });
    await other.reset({ userId: 'bob' });
    expect(await found(gateway, 'ada', 'sundays')).toEqual(['Runs a running club on Sundays']);
    expect(await found(gateway, 'bob', 'sourdough')).toEqual([]);
    expect(gateway.lexicalCacheStats().builds).toBe(4);

    // A commit elsewhere that touches nobody's memories (marking use) rebuilds nothing.
    const ids = (await gateway.search({ userId: 'ada', text: 'runs', limit: 10 })).map(
      (hit) => hit.memory.id,
    );
    await other.markUsed({ ids, at: 1 });
    expect(await found(gateway, 'ada', 'marathons')).toEqual(['Runs marathons']);
    expect(gateway.lexicalCacheStats().builds).toBe(4);

    // Bob told again after being forgotten gets a new change number, so no stale index serves him.
    await gateway.insert({ memory: memory('bob', 'Bakes rye bread') });
    await other.insert({ memory: memory('bob', 'Bakes sourdough again') });
    expect(await found(gateway, 'bob', 'bakes')).toEqual(
      expect.arrayContaining(['Bakes rye bread', 'Bakes sourdough again']),
    );
  });

  it('answers a person with no memories from the index, and sees their first memory from anywhere', async () => {
    directory = mkdtempSync(join(tmpdir(), 'nexus-lexical-'));
    const path = join(directory, 'memory.db');
    const gateway = open(path);
    const other = open(path);
    // The reads that only look at the index come first: a person search would refresh it.
    const everything = async (userId: string) => ({
      standing: (await gateway.standing({ userId, limit: 10, order: () => 0 })).length,
      listed: (await gateway.list({ userId, limit: 10, offset: 0 })).length,
      session: (await gateway.search({ userId, text: 'pottery', sessionId: 'web:1', limit: 10 })).length,
      found: await found(gateway, userId, 'pottery'),
    });
    const none = { found: [], session: 0, listed: 0, standing: 0 };
    await found(gateway, 'ada', 'pottery');
    expect(await everything('ada')).toEqual(none);
    expect(gateway.lexicalCacheStats().people).toMatchObject([{ userId: 'ada', memories: 0 }]);

    // Another connection (the worker's extraction, say) gives Ada her first memory, in a session.
    await other.insert({ memory: { ...memory('ada', 'Took up pottery'), sessionId: 'web:1' } });
    const one = { found: ['Took up pottery'], session: 1, listed: 1, standing: 1 };
    expect(await everything('ada')).toEqual(one);
    // Forgotten there, and nothing of hers is left here either.
    await other.reset({ userId: 'ada' });
    expect(await everything('ada')).toEqual(none);
    // A commit made while the gateway's reads of one run of code are under way (here from the
    // same process, which production never does) is seen by the next run's reads at the latest.
    await other.insert({ memory: memory('ada', 'Took up pottery') });
    const during = gateway.list({ userId: 'ada', limit: 10, offset: 0 });
    const forgotten = other.reset({ userId: 'ada' });
    await Promise.all([during, forgotten]);
    expect(await everything('ada')).toEqual(none);
    // The store's own first memory for a person is seen as well, even while its insert is queued.
    await gateway.search({ userId: 'bob', text: 'pottery', limit: 10 });
    const queued = gateway.insert({ memory: { ...memory('bob', 'Took up pottery'), sessionId: 'web:1' } });
    expect(await everything('bob')).toEqual(one);
    await queued;
  });

  it('does not take another connection’s change as its own when it commits in the same run of code', async () => {
    directory = mkdtempSync(join(tmpdir(), 'nexus-lexical-'));
    const path = join(directory, 'memory.db');
    const gateway = open(path);
    const other = open(path);
    const kept = memory('ada', 'Runs marathons');
    await gateway.insert({ memory: kept });
    expect(await found(gateway, 'ada', 'marathons')).toEqual(['Runs marathons']);
    // One synchronous run: the gateway reads (data_version taken), the other connection commits a
    // memory for Ada, then the gateway commits an edit of hers. Its index must not claim her new
    // change number without holding the other connection's memory.
    const read = gateway.list({ userId: 'ada', limit: 10, offset: 0 });
    const added = other.insertMany({ items: [{ memory: memory('ada', 'Sings in a choir') }] });
    const edited = gateway.update({ memory: { ...kept, content: 'Runs ultramarathons' } });
    await Promise.all([read, added, edited]);
    expect(await found(gateway, 'ada', 'choir')).toEqual(['Sings in a choir']);
    expect(await found(gateway, 'ada', 'ultramarathons')).toEqual(['Runs ultramarathons']);
  });

  it('builds a large person’s index in slices, searching with FTS5 meanwhile and missing no write', async () => {
    const store = open(':memory:', {
      path: ':memory:',
      lexicalCache: { inlineBuildMax: 20, buildSliceRows: 10 },
    });
    const notes = Array.from({ length: 60 }, (_, index) => memory('ada', `Note ${index} about gardening`));
    await store.insertMany({ items: notes.map((note) => ({ memory: note })) });
    // The first search starts the build and is answered by FTS5, with the same memories found.
    expect(await found(store, 'ada', 'note 7 gardening')).toContain('Note 7 about gardening');
    expect(store.lexicalCacheStats()).toMatchObject({ builds: 0, building: ['ada'] });
    // Between slices: a memory read already is edited, one not read yet is deleted, one added.
    await new Promise((resolve) => setImmediate(resolve));
    await store.update({ memory: { ...notes[1]!, content: 'Note 1 about beekeeping' } });
    await store.delete({ userId: 'ada', id: notes[55]!.id });
    await store.insert({ memory: memory('ada', 'Note 60 about beekeeping') });
    while (store.lexicalCacheStats().building.length > 0)
      await new Promise((resolve) => setImmediate(resolve));
    expect(store.lexicalCacheStats()).toMatchObject({ builds: 1, people: [{ userId: 'ada', memories: 60 }] });
    expect((await found(store, 'ada', 'beekeeping')).sort()).toEqual([
      'Note 1 about beekeeping',
      'Note 60 about beekeeping',
    ]);
    expect(await found(store, 'ada', 'note 55')).not.toContain('Note 55 about gardening');
    expect(store.lexicalCacheStats().builds).toBe(1);
  });

  it('finishes a background build through searches alone, when nothing yields to the event loop', async () => {
    const store = open(':memory:', {
      path: ':memory:',
      lexicalCache: { inlineBuildMax: 20, buildSliceRows: 10 },
    });
    await store.insertMany({
      items: Array.from({ length: 45 }, (_, index) => ({ memory: memory('ada', `Note ${index} on tea`) })),
    });
    // Awaited in-process calls run as microtasks: the build's timer never gets a turn here.
    const seen: number[] = [];
    for (let search = 0; search < 6; search += 1) {
      expect(await found(store, 'ada', 'note 44')).toContain('Note 44 on tea');
      seen.push(store.lexicalCacheStats().builds);
    }
    // The first search starts the build; each later one reads a slice of 10: ready at the 6th.
    expect(seen).toEqual([0, 0, 0, 0, 0, 1]);
  });

  it('forgets a person’s words from the process’s stem cache too', async () => {
    const store = open(':memory:');
    await store.insert({ memory: memory('cy', 'Grows heirloom tomatoes') });
    expect(await found(store, 'cy', 'tomatoes')).toEqual(['Grows heirloom tomatoes']);
    expect(rememberedStemCount()).toBeGreaterThan(0);
    await store.reset({ userId: 'cy' });
    expect(rememberedStemCount()).toBe(0);
  });

  it('keeps all indexes under the byte budget, the least recently searched evicted first', async () => {
    const store = open(':memory:', { path: ':memory:', lexicalCache: { maxBytes: 30_000 } });
    for (const person of ['ada', 'bob', 'cy']) {
      await store.insertMany({
        items: Array.from({ length: 100 }, (_, index) => ({
          memory: memory(person, `${person} note ${index} about gardening`),
        })),
      });
    }
    for (const person of ['ada', 'bob', 'cy']) {
      expect(await found(store, person, 'gardening')).toHaveLength(10);
    }
    const stats = store.lexicalCacheStats();
    expect(stats.bytes).toBeLessThanOrEqual(30_000);
    expect(stats.people.map((person) => person.userId)).toEqual(['cy']);
    // The person searched is kept even when they alone are over the budget.
    const tiny = open(':memory:', { path: ':memory:', lexicalCache: { maxBytes: 1 } });
    await tiny.insert({ memory: memory('ada', 'Knits scarves') });
    expect(await found(tiny, 'ada', 'scarves')).toEqual(['Knits scarves']);
    expect(tiny.lexicalCacheStats().people).toHaveLength(1);
  });
});
