import { afterEach, describe, expect, it } from 'vitest';
import type { Embedder } from '../embedders/embedder.ts';
import type { MemoryStore } from '../model/memory-store.ts';
import { createSqliteMemoryStore } from '../sqlite/sqlite-memory-store.ts';
import { createHashedEmbedder } from '../testing/hashed-embedder.ts';
import { MemoryService } from './memory-service.ts';

const NOW = Date.UTC(2026, 2, 1);

/** The real store with some methods replaced; the rest bound to it (they use private fields). */
function withMethods(store: MemoryStore, overrides: Partial<MemoryStore>): MemoryStore {
  return new Proxy(store, {
    get(target, key) {
      if (key in overrides) return overrides[key as keyof MemoryStore];
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** Lets the event loop turn until `done` holds (or gives up after a few turns). */
async function turnsUntil(done: () => boolean): Promise<void> {
  for (let turn = 0; turn < 20 && !done(); turn += 1) await new Promise((resolve) => setImmediate(resolve));
}

// What a warm turn waits for in the memory step (docs/throughput.md, "Toward the floor"): the
// query's embedding, and nothing that does not need it.
describe('MemoryService.context waits', () => {
  const stores: MemoryStore[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
  });

  it('reads the standing facts while the query embedding is out, not after it answered', async () => {
    const hashed = createHashedEmbedder({ dimensions: 16 });
    const store = createSqliteMemoryStore({
      path: ':memory:',
      vectors: { embedderId: hashed.id, dimensions: 16 },
    });
    stores.push(store);
    await new MemoryService({ store, embedder: hashed, now: () => NOW }).add({
      userId: 'ada',
      content: 'Is vegetarian',
      category: 'preference',
      source: 'user_explicit',
    });
    const events: string[] = [];
    let answer: (() => void) | undefined;
    // The embedding endpoint answers only when the test says so.
    const heldEmbedder: Embedder = {
      ...hashed,
      async embed(request) {
        await new Promise<void>((resolve) => {
          answer = resolve;
        });
        events.push('query embedded');
        return hashed.embed(request);
      },
    };
    const watched = withMethods(store, {
      standing: (options) => {
        events.push('standing facts read');
        return store.standing(options);
      },
    });
    const service = new MemoryService({ store: watched, embedder: heldEmbedder, now: () => NOW });
    const context = service.context({
      userId: 'ada',
      query: 'what should I cook tonight',
      standing: { limit: 5, tokenBudget: 200 },
    });
    await turnsUntil(() => events.length > 0);
    expect(events).toEqual(['standing facts read']);
    answer?.();
    const result = await context;
    expect(events).toEqual(['standing facts read', 'query embedded']);
    expect(result.standing?.status).toBe('ok');
    expect(result.context).toContain('Is vegetarian');
  });

  it('answers without waiting for the record of which memories it used, and records it after', async () => {
    const store = createSqliteMemoryStore({ path: ':memory:' });
    stores.push(store);
    const added = await new MemoryService({ store, now: () => NOW }).add({
      userId: 'ada',
      content: 'Keeps bees in the garden',
    });
    const memoryId = 'memory' in added ? added.memory.id : '';
    let record: (() => Promise<void>) | undefined;
    // A store whose write of `lastUsedAt` takes until the test lets it through.
    const slowRecord = withMethods(store, {
      markUsed: (options) =>
        new Promise<void>((resolve, reject) => {
          record = () => store.markUsed(options).then(resolve, reject);
        }),
    });
    const service = new MemoryService({ store: slowRecord, now: () => NOW + 1_000 });
    const result = await service.context({ userId: 'ada', query: 'tell me about the bees' });
    expect(result.memoryIds).toEqual([memoryId]);
    expect((await store.get({ userId: 'ada', id: memoryId }))?.lastUsedAt).toBeUndefined();
    // A read through the service waits for the record, so it answers as it would over HTTP.
    let read = false;
    const viaService = service.get({ userId: 'ada', id: memoryId }).finally(() => {
      read = true;
    });
    await turnsUntil(() => record !== undefined);
    expect(read).toBe(false);
    await record?.();
    expect((await store.get({ userId: 'ada', id: memoryId }))?.lastUsedAt).toBe(NOW + 1_000);
    expect((await viaService)?.lastUsedAt).toBe(NOW + 1_000);
  });
});
