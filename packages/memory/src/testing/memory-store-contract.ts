import { approximateTokenCounter } from '@nexus/limits-kit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CONTEXT_HEADER, GLOBAL_CONTEXT_HEADER } from '../context/context-block.ts';
import type { Embedder } from '../embedders/embedder.ts';
import { contentHash } from '../model/content-hash.ts';
import type { MemoryStore, VectorSpace } from '../model/memory-store.ts';
import { DAY_MS } from '../ranking/memory-scoring.ts';
import { MemoryService } from '../service/memory-service.ts';
import { createHashedEmbedder } from './hashed-embedder.ts';
import { describeIsolationProperty } from './isolation-property.ts';
import { describeStandingFactsProperty } from './standing-facts-property.ts';

export interface MemoryStoreContractOptions {
  name: string;
  /** Opens the store at `location`; opening the same location again must see the same data. */
  open(options: { location: string; vectors?: VectorSpace }): Promise<MemoryStore>;
  /** A fresh, empty location (a temp file, a collection name). */
  createLocation(): Promise<string> | string;
  cleanup?(location: string): Promise<void>;
  /** When set, every case is skipped with this reason. */
  skipReason?: string | undefined;
  /** Scale of the isolation property test (default 100 people × 200 memories). */
  isolation?: { people: number; memoriesPerPerson: number };
}

export const CONTRACT_DIMENSIONS = 64;
const START = Date.UTC(2026, 0, 1);

/**
 * The behaviour every `MemoryStore` must show, exercised through `MemoryService` so what is
 * tested is what core sees: dedupe, update, delete, reset, session links, stats, scopes,
 * persistence across close/reopen and per-person isolation.
 */
export function describeMemoryStoreContract(options: MemoryStoreContractOptions): void {
  describe(`MemoryStore contract: ${options.name}`, () => {
    const embedder: Embedder = createHashedEmbedder({ dimensions: CONTRACT_DIMENSIONS });
    const vectors: VectorSpace = { embedderId: embedder.id, dimensions: CONTRACT_DIMENSIONS };
    let location: string;
    let store: MemoryStore;
    let clock = START;
    const now = () => clock;
    const open = async () => options.open({ location, vectors });
    const serviceOf = (memoryStore: MemoryStore) =>
      new MemoryService({ store: memoryStore, embedder, now, tokenCounter: approximateTokenCounter });

    // A subject that cannot run (no server to test against) skips every case with its reason, in
    // the same style as every contract suite: `context.skip(condition, reason)` per case.
    beforeEach((context) => context.skip(options.skipReason !== undefined, options.skipReason));
    beforeEach(async () => {
      clock = START;
      location = await options.createLocation();
      store = await open();
    });
    afterEach(async () => {
      if (options.skipReason !== undefined) return;
      await store.close();
      await options.cleanup?.(location);
    });

    it('inserts, gets and lists a person’s memories, newest first', async () => {
      const service = serviceOf(store);
      const first = await service.add({ userId: 'ada', content: 'Works as a nurse', category: 'fact' });
      clock += 1_000;
      const second = await service.add({
        userId: 'ada',
        content: 'Prefers tea over coffee',
        category: 'preference',
      });
      expect(first.action).toBe('inserted');
      expect(await service.get({ userId: 'ada', id: first.memory.id })).toEqual(first.memory);
      expect(await service.get({ userId: 'bob', id: first.memory.id })).toBeUndefined();
      const listed = await service.list({ userId: 'ada' });
      expect(listed.map((memory) => memory.id)).toEqual([second.memory.id, first.memory.id]);
      expect(await service.list({ userId: 'ada', limit: 1, offset: 1 })).toEqual([first.memory]);
    });

    it('updates a memory in place: same id and creation time, new content found, old content gone', async () => {
      const service = serviceOf(store);
      const { memory: original } = await service.add({
        userId: 'ada',
        content: 'Lives in Lisbon near the river',
        category: 'fact',
        sessionId: 'telegram:42',
        metadata: { via: 'extraction' },
      });
      const other = await service.add({
        userId: 'ada',
        content: 'Plays chess on Sundays',
        category: 'pattern',
      });
      clock += 3 * DAY_MS;
      const updated = await service.update({
        userId: 'ada',
        id: original.id,
        content: 'Lives in Porto by the sea',
        category: 'event',
      });
      expect(updated).toMatchObject({
        id: original.id,
        createdAt: original.createdAt,
        updatedAt: clock,
        sessionId: 'telegram:42',
        content: 'Lives in Porto by the sea',
        category: 'event',
        source: 'user_explicit',
        metadata: { via: 'extraction' },
      });
      // Persisted, searchable by the new words and not the old ones, still one memory.
      const reopened = serviceOf(store);
      expect(await reopened.get({ userId: 'ada', id: original.id })).toEqual(updated);
      expect((await reopened.search({ userId: 'ada', query: 'Porto sea' }))[0]?.id).toBe(original.id);
      // Its hash follows the content: the old wording no longer matches it, the new one does.
      expect(await store.findByHash({ userId: 'ada', hash: contentHash(original.content) })).toBeUndefined();
      expect(
        (await store.findByHash({ userId: 'ada', hash: contentHash('Lives in Porto by the sea') }))?.id,
      ).toBe(original.id);
      expect(await reopened.list({ userId: 'ada' })).toHaveLength(2);
      // Another person cannot edit it, and no edit may duplicate another memory's text.
      expect(await service.update({ userId: 'bob', id: original.id, content: 'hijacked' })).toBeUndefined();
      await expect(
        service.update({ userId: 'ada', id: original.id, content: other.memory.content }),
      ).rejects.toThrow(/another memory already says this/);
      expect((await service.get({ userId: 'ada', id: original.id }))?.content).toBe(
        'Lives in Porto by the sea',
      );
    });

    it('keeps an import’s id and times, and refuses an id another person’s memory has', async () => {
      const service = serviceOf(store);
      const id = '5b0c7e2a-1f3d-4a6b-8c9d-0e1f2a3b4c5d';
      const createdAt = START - 400 * DAY_MS;
      const imported = await service.add({
        userId: 'ada',
        content: 'Grew up in Coimbra',
        id,
        createdAt,
        updatedAt: createdAt + DAY_MS,
      });
      expect(imported.memory).toMatchObject({ id, createdAt, updatedAt: createdAt + DAY_MS });
      await expect(service.add({ userId: 'bob', content: 'Grew up in Braga', id })).rejects.toMatchObject({
        name: 'MemoryInputError',
        field: 'id',
      });
      expect(await service.get({ userId: 'ada', id })).toEqual(imported.memory);
      expect(await service.list({ userId: 'bob' })).toEqual([]);
    });

    it('treats an exact duplicate (after normalisation) as a no-op', async () => {
      const service = serviceOf(store);
      const first = await service.add({ userId: 'ada', content: 'Prefers tea over coffee' });
      clock += DAY_MS;
      const again = await service.add({ userId: 'ada', content: '  prefers TEA over coffee. ' });
      expect(again).toMatchObject({ action: 'unchanged', deduplicated: true });
      expect(again.memory).toEqual(first.memory);
      expect(await service.list({ userId: 'ada' })).toHaveLength(1);
    });

    it('updates a near-duplicate (cosine ≥ 0.92) instead of inserting it, and keeps it after reopening', async () => {
      const service = serviceOf(store);
      const first = await service.add({
        userId: 'ada',
        content: 'Drinks green tea every single morning before work',
        source: 'user_explicit',
      });
      clock += 2 * DAY_MS;
      const updated = await service.add({
        userId: 'ada',
        content: 'Drinks green tea every single morning before work now',
      });
      expect(updated).toMatchObject({ action: 'updated', deduplicated: true });
      expect(updated.memory.id).toBe(first.memory.id);
      expect(updated.memory.source).toBe('user_explicit');
      expect(updated.previousContent).toBe('Drinks green tea every single morning before work');
      const unrelated = await service.add({ userId: 'ada', content: 'Owns a red bicycle' });
      expect(unrelated.action).toBe('inserted');
      await store.close();
      store = await open();
      const reopened = serviceOf(store);
      const stored = await reopened.get({ userId: 'ada', id: first.memory.id });
      expect(stored).toMatchObject({
        content: 'Drinks green tea every single morning before work now',
        updatedAt: clock,
      });
      expect(stored?.createdAt).toBe(START);
      expect(await reopened.list({ userId: 'ada' })).toHaveLength(2);
      // The vector was replaced too: restating it once more is an exact duplicate of the new text.
      const restated = await reopened.add({
        userId: 'ada',
        content: 'drinks green tea every single morning before work now',
      });
      expect(restated.action).toBe('unchanged');
    });

    it('finds the best match first with a relevance in [0, 1], lexically and densely', async () => {
      const service = serviceOf(store);
      await service.add({ userId: 'ada', content: 'Has a cat called Miso' });
      const target = await service.add({ userId: 'ada', content: 'Allergic to peanuts and cashews' });
      await service.add({ userId: 'ada', content: 'Lives near the harbour in Lisbon' });
      await service.add({ userId: 'bob', content: 'Allergic to peanuts' });
      const results = await service.search({ userId: 'ada', query: 'peanuts allergy' });
      expect(results[0]?.id).toBe(target.memory.id);
      for (const result of results) {
        expect(result.relevance).toBeGreaterThanOrEqual(0);
        expect(result.relevance).toBeLessThanOrEqual(1);
        // Defaults: category "fact" (prior 0.03), source "inferred" (0).
        expect(result.score).toBeCloseTo(0.7 * result.relevance + 0.3 + 0.03, 9);
      }
      expect(results.every((result) => result.content !== 'Allergic to peanuts')).toBe(true);
    });

    it('orders equal relevance by the prior, and equal scores by the tie-break', async () => {
      // Lexical only: the two texts have the same words, so BM25 scores them exactly alike (and
      // near-duplicate merging is off, since these two would otherwise be one memory).
      const service = new MemoryService({
        store,
        now,
        tokenCounter: approximateTokenCounter,
        lexicalDuplicateThreshold: 1.01,
      });
      const pattern = await service.add({
        userId: 'ada',
        content: 'jazz evenings',
        category: 'pattern',
        source: 'inferred',
      });
      const preference = await service.add({
        userId: 'ada',
        content: 'evenings jazz',
        category: 'preference',
        source: 'user_explicit',
      });
      const results = await service.search({ userId: 'ada', query: 'jazz evenings' });
      expect(results.map((result) => result.id)).toEqual([preference.memory.id, pattern.memory.id]);
      expect(results[0]!.score - results[1]!.score).toBeCloseTo(0.07, 9);
      const noPrior = new MemoryService({
        store,
        now,
        tokenCounter: approximateTokenCounter,
        scoring: { priorWeight: 0 },
      });
      const tied = await noPrior.search({ userId: 'ada', query: 'jazz evenings' });
      expect(tied.map((result) => result.id)).toEqual([preference.memory.id, pattern.memory.id]);
      expect(tied[0]?.score).toBe(tied[1]?.score);
    });

    it('links sessions, lists a session’s memories and drops the links on delete, across reopen', async () => {
      const service = serviceOf(store);
      const told = await service.add({
        userId: 'ada',
        content: 'Is planning a trip to Kyoto',
        sessionId: 's1',
      });
      clock += 1_000;
      const again = await service.add({
        userId: 'ada',
        content: 'is planning a trip to kyoto',
        sessionId: 's2',
      });
      expect(again.action).toBe('unchanged');
      const other = await service.add({ userId: 'ada', content: 'Wants a window seat', sessionId: 's2' });
      await service.add({ userId: 'bob', content: 'Likes trains', sessionId: 's2' });
      expect((await service.sessionMemories({ sessionId: 's1' })).map((memory) => memory.id)).toEqual([
        told.memory.id,
      ]);
      expect(
        (await service.sessionMemories({ sessionId: 's2', userId: 'ada' })).map((memory) => memory.id),
      ).toEqual([told.memory.id, other.memory.id]);
      expect(await service.sessionMemories({ sessionId: 's2' })).toHaveLength(3);
      expect((await service.stats()).totalSessions).toBe(2);
      await store.close();
      store = await open();
      const reopened = serviceOf(store);
      expect(await reopened.delete({ userId: 'ada', id: told.memory.id })).toEqual({ deleted: true });
      expect(await reopened.delete({ userId: 'ada', id: told.memory.id })).toEqual({ deleted: false });
      expect(await reopened.sessionMemories({ sessionId: 's1' })).toEqual([]);
      expect(
        (await reopened.sessionMemories({ sessionId: 's2', userId: 'ada' })).map((memory) => memory.id),
      ).toEqual([other.memory.id]);
      const stats = await reopened.stats();
      expect(stats.totalSessions).toBe(1);
      const found = await reopened.search({ userId: 'ada', query: 'Kyoto trip' });
      expect(found.map((result) => result.id)).not.toContain(told.memory.id);
    });

    it('resets one person only, and reports stats per person and in total, across reopen', async () => {
      const service = serviceOf(store);
      for (const content of ['Speaks Dutch', 'Runs marathons', 'Collects stamps']) {
        await service.add({ userId: 'ada', content, sessionId: 'ada-1' });
      }
      await service.add({ userId: 'bob', content: 'Speaks Dutch', sessionId: 'bob-1' });
      await service.add({ scope: 'global', content: 'The assistant is called Nexus' });
      expect(await service.stats()).toEqual({
        totalMemories: 5,
        totalUsers: 2,
        totalSessions: 2,
        globalMemories: 1,
        users: [
          { userId: 'ada', memories: 3, sessions: 1 },
          { userId: 'bob', memories: 1, sessions: 1 },
        ],
      });
      expect((await service.stats({ userId: 'bob' })).users).toEqual([
        { userId: 'bob', memories: 1, sessions: 1 },
      ]);
      expect(await service.reset({ userId: 'ada' })).toEqual({ deleted: 3 });
      await store.close();
      store = await open();
      const reopened = serviceOf(store);
      expect(await reopened.list({ userId: 'ada' })).toEqual([]);
      expect(await reopened.sessionMemories({ sessionId: 'ada-1' })).toEqual([]);
      expect(await reopened.search({ userId: 'ada', query: 'Dutch marathons stamps' })).toEqual([]);
      expect((await reopened.search({ userId: 'bob', query: 'Dutch' }))[0]?.content).toBe('Speaks Dutch');
      expect(await reopened.stats()).toMatchObject({
        totalMemories: 2,
        totalUsers: 1,
        totalSessions: 1,
        globalMemories: 1,
      });
    });

    it('builds context from the global, user and session scopes, with ages and sources', async () => {
      const service = serviceOf(store);
      await service.add({ scope: 'global', content: 'The assistant is called Nexus' });
      await service.add({
        userId: 'ada',
        content: 'Prefers short answers',
        category: 'preference',
        source: 'user_explicit',
      });
      clock += 3 * DAY_MS;
      await service.add({
        userId: 'ada',
        scope: 'session',
        sessionId: 'trip',
        content: 'Wants answers about Kyoto trains',
      });
      await service.add({
        userId: 'ada',
        scope: 'session',
        sessionId: 'other',
        content: 'Wants answers about tax forms',
      });
      const context = await service.context({
        userId: 'ada',
        query: 'answers Nexus Kyoto tax',
        sessionId: 'trip',
      });
      expect(context.context.startsWith(`${CONTEXT_HEADER}\n`)).toBe(true);
      expect(context.context).toContain(
        `${GLOBAL_CONTEXT_HEADER}\n- The assistant is called Nexus (fact, 3 days ago, inferred)`,
      );
      expect(context.context).toContain('- Prefers short answers (preference, 3 days ago, you told me)');
      expect(context.context).toContain('- Wants answers about Kyoto trains (fact, today, inferred)');
      // The person's facts come first, the global ones after them under their own heading.
      expect(context.context.indexOf('Kyoto')).toBeLessThan(context.context.indexOf(GLOBAL_CONTEXT_HEADER));
      expect(context.context).not.toContain('tax forms');
      expect(context.scopes.global.status).toBe('ok');
      expect(context.scopes.session.status).toBe('ok');
      expect(context).toMatchObject({ memoriesUsed: 3, truncated: false, tokenBudget: 2000 });
      const withoutSession = await service.context({ userId: 'ada', query: 'answers Kyoto tax' });
      expect(withoutSession.scopes.session.status).toBe('skipped');
      expect(withoutSession.context).not.toContain('Kyoto');
    });

    describeStandingFactsProperty({
      store: () => store,
      service: (clockOf) => new MemoryService({ store, now: clockOf, tokenCounter: approximateTokenCounter }),
    });

    describeIsolationProperty({
      scale: options.isolation ?? { people: 100, memoriesPerPerson: 200 },
      store: () => store,
      service: () => serviceOf(store),
      embedder,
    });
  });
}
