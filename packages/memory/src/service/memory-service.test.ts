import { sharedTokenCounter } from '@nexus/limits-kit';
import { startScriptedModelServer } from '@nexus/testkit/llm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOpenAICompatibleEmbedder } from '../embedders/openai-compatible-embedder.ts';
import { GLOBAL_USER_ID } from '../model/memory.ts';
import { EmbedderMismatchError, MemoryInputError } from '../model/memory-errors.ts';
import type { MemoryStore } from '../model/memory-store.ts';
import { createSqliteMemoryStore } from '../sqlite/sqlite-memory-store.ts';
import { createHashedEmbedder } from '../testing/hashed-embedder.ts';
import { seededRandom } from '../testing/seeded-random.ts';
import { MemoryService } from './memory-service.ts';

const NOW = Date.UTC(2026, 2, 1);

describe('MemoryService', () => {
  let store: MemoryStore;
  beforeEach(() => {
    store = createSqliteMemoryStore({ path: ':memory:' });
  });
  afterEach(async () => {
    await store.close();
  });

  it('rejects bad input with the field named, and stores nothing', async () => {
    const service = new MemoryService({ store, now: () => NOW });
    const cases: Array<[() => Promise<unknown>, string]> = [
      [() => service.add({ content: 'x' }), 'userId'],
      [() => service.add({ userId: 'ada', content: '' }), 'content'],
      [() => service.add({ userId: 'ada', content: 'x'.repeat(4_001) }), 'content'],
      [() => service.add({ userId: GLOBAL_USER_ID, content: 'x' }), 'userId'],
      [() => service.add({ userId: 'ada', content: 'x', scope: 'session' }), 'sessionId'],
      [() => service.add({ userId: 'ada', content: 'x', category: 'opinion' as never }), 'category'],
      [() => service.context({ userId: 'ada', query: 'x', tokenBudget: -1 }), 'tokenBudget'],
      [() => service.search({ userId: 'ada', query: 42 as never }), 'query'],
      [() => service.delete({ userId: 'ada', id: 'not-a-uuid' }), 'id'],
    ];
    for (const [call, field] of cases) {
      const error = await call().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(MemoryInputError);
      expect((error as MemoryInputError).field).toBe(field);
      expect((error as MemoryInputError).message).toContain(field);
    }
    expect((await service.stats()).totalMemories).toBe(0);
  });

  it('refuses an embedder other than the one the store was indexed with', () => {
    const embedder = createHashedEmbedder({ dimensions: 8 });
    expect(() => new MemoryService({ store, embedder })).toThrow(EmbedderMismatchError);
  });

  it('answers context from the scopes that made it in time when one scope is late', async () => {
    const service = new MemoryService({ store, now: () => NOW, scopeTimeoutMs: 50 });
    await service.add({ userId: 'ada', content: 'Prefers short answers', source: 'user_explicit' });
    await service.add({ scope: 'global', content: 'Short answers are the house style' });
    let aborted = false;
    const slowGlobal: MemoryStore = Object.create(store, {
      // The store's own methods need the store itself as `this` (private fields).
      list: { value: (options: Parameters<MemoryStore['list']>[0]) => store.list(options) },
      search: {
        value: async (options: Parameters<MemoryStore['search']>[0]) => {
          if (options.userId !== GLOBAL_USER_ID) return store.search(options);
          await new Promise<void>((resolve) =>
            options.abortSignal?.addEventListener('abort', () => resolve(), { once: true }),
          );
          aborted = true;
          return [];
        },
      },
    });
    const partial = new MemoryService({ store: slowGlobal, now: () => NOW, scopeTimeoutMs: 50 });
    const context = await partial.context({ userId: 'ada', query: 'short answers' });
    expect(context.scopes.global.status).toBe('timeout');
    expect(context.scopes.user).toMatchObject({ status: 'ok', candidates: 1 });
    expect(context.context).toContain('Prefers short answers (fact, today, you told me)');
    expect(context.context).not.toContain('house style');
    expect(aborted).toBe(true);
    expect((await service.context({ userId: 'ada', query: 'short answers' })).memoriesUsed).toBe(2);
  });

  it('property: through the service, the block fits the budget and truncated ⇔ a candidate was left out', async () => {
    const counter = sharedTokenCounter();
    const service = new MemoryService({ store, now: () => NOW, tokenCounter: counter });
    const random = seededRandom(99);
    const words = 'tea jazz kyoto piano garden dog morning budget hiking chess'.split(' ');
    for (let set = 0; set < 60; set++) {
      const userId = `person-${set}`;
      const count = 1 + Math.floor(random() * 25);
      for (let index = 0; index < count; index++) {
        const length = 2 + Math.floor(random() * 30);
        const content = `${Array.from({ length }, () => words[Math.floor(random() * words.length)]).join(' ')} ${index}`;
        await service.add({ userId, content });
      }
      const tokenBudget = Math.floor(random() * 400);
      const limit = 1 + Math.floor(random() * 20);
      const context = await service.context({ userId, query: words.join(' '), tokenBudget, limit });
      const candidates = Math.min(limit, context.scopes.user.candidates);
      expect(context.context === '' ? 0 : counter.count(context.context)).toBeLessThanOrEqual(tokenBudget);
      expect(context.tokensUsed).toBeLessThanOrEqual(tokenBudget);
      expect(context.truncated).toBe(context.memoriesUsed < candidates);
    }
  });
});

describe('MemoryService with the OpenAI-compatible embedder', () => {
  it('embeds through /v1/embeddings, dedupes near-duplicates and searches densely', async () => {
    const server = await startScriptedModelServer({ embeddingDimensions: 64 });
    try {
      const embedder = createOpenAICompatibleEmbedder({
        baseUrl: server.baseUrl,
        model: 'bag-of-words',
        dimensions: 64,
      });
      const store = createSqliteMemoryStore({
        path: ':memory:',
        vectors: { embedderId: embedder.id, dimensions: 64 },
      });
      const service = new MemoryService({ store, embedder, now: () => NOW });
      await service.add({ userId: 'ada', content: 'Drinks green tea every single morning before work' });
      const updated = await service.add({
        userId: 'ada',
        content: 'Drinks green tea every single morning before work now',
      });
      expect(updated).toMatchObject({ action: 'updated', deduplicated: true });
      await service.add({ userId: 'ada', content: 'Keeps bees in the garden' });
      const [first] = await service.search({ userId: 'ada', query: 'bees' });
      expect(first?.content).toBe('Keeps bees in the garden');
      expect(await service.health()).toMatchObject({
        search: 'hybrid',
        embedder: 'openai-compatible:bag-of-words',
      });
      expect(
        server.requests.filter((request) => request.path === '/v1/embeddings').length,
      ).toBeGreaterThanOrEqual(4);
      await store.close();
    } finally {
      await server.close();
    }
  });

  it('rejects vectors of the wrong length and reports an unreachable endpoint as retryable', async () => {
    const server = await startScriptedModelServer({ embeddingDimensions: 16 });
    try {
      const wrongSize = createOpenAICompatibleEmbedder({
        baseUrl: server.baseUrl,
        model: 'm',
        dimensions: 32,
      });
      await expect(wrongSize.embed({ texts: ['x'] })).rejects.toThrow(/16 dimensions, expected 32/);
    } finally {
      await server.close();
    }
    const unreachable = createOpenAICompatibleEmbedder({
      baseUrl: server.baseUrl,
      model: 'm',
      dimensions: 16,
    });
    await expect(unreachable.embed({ texts: ['x'] })).rejects.toMatchObject({ retryable: true });
  });
});
