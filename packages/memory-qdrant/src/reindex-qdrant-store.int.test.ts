import { randomUUID } from 'node:crypto';
import { contentHash, type Embedder, EmbedderMismatchError, type Memory, MemoryService } from '@nexus/memory';
import { createHashedEmbedder } from '@nexus/memory/testing';
import { type QdrantStandIn, startQdrantStandIn } from '@nexus/testkit/qdrant';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openQdrantMemoryStore } from './qdrant-memory-store.ts';
import { reindexQdrantStore } from './reindex-qdrant-store.ts';

const old = createHashedEmbedder({ dimensions: 8 });
const next = createHashedEmbedder({ dimensions: 16 });
const spaceOf = (embedder: Embedder) => ({ embedderId: embedder.id, dimensions: embedder.dimensions });

let standIn: QdrantStandIn;
const collection = 'memories';

function countingEmbedder(inner: Embedder, failAfter = Number.POSITIVE_INFINITY) {
  const counter = { texts: 0 };
  const embedder: Embedder = {
    id: inner.id,
    dimensions: inner.dimensions,
    async embed(options) {
      if (counter.texts + options.texts.length > failAfter) throw new Error('embedder went away');
      counter.texts += options.texts.length;
      return inner.embed(options);
    },
  };
  return { embedder, counter };
}

const open = (embedder: Embedder | undefined) =>
  openQdrantMemoryStore({
    url: standIn.url,
    collection,
    ...(embedder ? { vectors: spaceOf(embedder) } : {}),
  });

beforeEach(async () => {
  standIn = await startQdrantStandIn();
  const store = await open(old);
  const items = [];
  for (let index = 0; index < 40; index++) {
    for (const [userId, topic] of [
      ['ann', 'green tea'],
      ['bob', 'red bicycle'],
    ] as const) {
      const content = `${userId} talks about ${topic} item ${index}`;
      const memory: Memory = {
        id: randomUUID(),
        userId,
        scope: 'user',
        content,
        category: 'fact',
        source: 'inferred',
        createdAt: 1_000,
        updatedAt: 1_000,
        hash: contentHash(content),
        metadata: {},
      };
      items.push({ memory, embedding: (await old.embed({ texts: [content] }))[0]! });
    }
  }
  await store.insertMany({ items });
});
afterEach(async () => {
  await standIn.close();
});

describe('reindexQdrantStore', () => {
  it('copies into a new collection, points the configured name at it, and switches again atomically', async () => {
    const progress: number[] = [];
    const result = await reindexQdrantStore({
      url: standIn.url,
      collection,
      embedder: next,
      batchSize: 32,
      onProgress: ({ done }) => progress.push(done),
    });
    expect(result).toMatchObject({ from: spaceOf(old), to: spaceOf(next), embedded: 80, total: 80 });
    expect(progress).toEqual([0, 32, 64, 80]);
    await expect(open(old)).rejects.toThrow(EmbedderMismatchError);
    const store = await open(next);
    const service = new MemoryService({ store, embedder: next });
    expect((await service.stats({})).totalMemories).toBe(80);
    const hits = await service.search({ userId: 'bob', query: 'red bicycle item 3' });
    expect(hits.map((hit) => hit.content)).toContain('bob talks about red bicycle item 3');
    expect(hits.every((hit) => hit.content.startsWith('bob '))).toBe(true);
    const physical = [...standIn.collections.keys()];
    expect(physical).toHaveLength(1);
    expect(physical[0]).toMatch(/^memories--/);

    // Second switch: one alias change, the previous copy deleted.
    await reindexQdrantStore({ url: standIn.url, collection, embedder: undefined });
    expect([...standIn.collections.keys()]).toHaveLength(1);
    expect([...standIn.collections.keys()][0]).not.toBe(physical[0]);
    const lexical = await open(undefined);
    expect(lexical.vectorSpace).toBeUndefined();
    expect((await lexical.stats()).totalMemories).toBe(80);
    expect(standIn.requests).toContain('POST /collections/aliases');
  });

  it('leaves the store on the old embedder when stopped midway, and resumes', async () => {
    const failing = countingEmbedder(next, 40);
    await expect(
      reindexQdrantStore({ url: standIn.url, collection, embedder: failing.embedder, batchSize: 20 }),
    ).rejects.toThrow(/went away/);
    const before = await open(old);
    const service = new MemoryService({ store: before, embedder: old });
    expect((await service.search({ userId: 'ann', query: 'green tea' })).length).toBeGreaterThan(0);
    // Changed meanwhile: one memory deleted, one added; the resumed copy follows.
    const [first] = await before.list({ userId: 'ann', limit: 1, offset: 0 });
    await before.delete({ userId: 'ann', id: first!.id });
    await service.add({ userId: 'ann', content: 'ann plays the cello on sundays' });

    const resumed = countingEmbedder(next);
    const result = await reindexQdrantStore({ url: standIn.url, collection, embedder: resumed.embedder });
    expect(resumed.counter.texts).toBeLessThanOrEqual(41);
    expect(resumed.counter.texts).toBeGreaterThanOrEqual(40);
    expect(result.total).toBe(80);
    const after = await open(next);
    expect((await after.stats()).totalMemories).toBe(80);
    expect(await after.get({ userId: 'ann', id: first!.id })).toBeUndefined();
  });

  it('carries over what is told, changed or linked during the copy, and nothing deleted or forgotten meanwhile', async () => {
    const live = await open(old);
    const service = new MemoryService({ store: live, embedder: old });
    const [first, second] = await live.list({ userId: 'ann', limit: 2, offset: 0 });
    // The writes land while the copy runs: after its first batch is embedded, before the rest.
    let calls = 0;
    const writing: Embedder = {
      id: next.id,
      dimensions: next.dimensions,
      async embed(options) {
        calls++;
        if (calls === 2) {
          await service.add({ userId: 'ann', content: 'ann learned to sail in June' });
          await service.add({ userId: 'carl', content: 'carl keeps bees' });
          await live.delete({ userId: 'ann', id: first!.id });
          await live.linkSession({ userId: 'ann', memoryId: second!.id, sessionId: 'chat-7' });
          expect(await service.reset({ userId: 'bob' })).toEqual({ deleted: 40 });
        }
        return next.embed(options);
      },
    };
    const steps: string[] = [];
    await reindexQdrantStore({
      url: standIn.url,
      collection,
      embedder: writing,
      batchSize: 16,
      async holdWrites(finalStep) {
        steps.push('hold');
        const result = await finalStep();
        steps.push('release');
        return result;
      },
      async beforeSwitch(target) {
        steps.push(`prepare ${target.replace(/--.*$/u, '--copy')}`);
        return () => steps.push('switched');
      },
    });
    expect(steps).toEqual(['hold', 'prepare memories--copy', 'switched', 'release']);

    const after = await open(next);
    const hybrid = new MemoryService({ store: after, embedder: next });
    const stats = await after.stats();
    expect(stats.totalMemories).toBe(41);
    expect(stats.users.map((user) => user.userId)).toEqual(['ann', 'carl']);
    // Forgotten during the copy: none of bob's memories, nor ann's deleted one, came back.
    expect(await after.list({ userId: 'bob', limit: 100, offset: 0 })).toEqual([]);
    expect(await after.get({ userId: 'ann', id: first!.id })).toBeUndefined();
    // Told during the copy: there, with a vector of the new embedder (found by meaning and words).
    const sail = await hybrid.search({ userId: 'ann', query: 'sail June' });
    expect(sail[0]?.content).toBe('ann learned to sail in June');
    expect((await hybrid.search({ userId: 'carl', query: 'bees' }))[0]?.content).toBe('carl keeps bees');
    // Linked after it was copied: the link came along.
    const session = await after.sessionMemories({ sessionId: 'chat-7', userId: 'ann' });
    expect(session.map((memory) => memory.id)).toEqual([second!.id]);
    const copied = [...standIn.collections.values()][0]!;
    const dense = [...copied.points.values()].filter((point) => Array.isArray(point.vectors.dense));
    expect(dense).toHaveLength(41);
  });
});
