import { createHash, randomUUID } from 'node:crypto';
import { type Memory, MemoryIdTakenError, MemoryStoreError } from '@nexus/memory';
import { type QdrantStandIn, startQdrantStandIn } from '@nexus/testkit/qdrant';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openQdrantMemoryStore } from './qdrant-memory-store.ts';

describe('openQdrantMemoryStore', () => {
  let standIn: QdrantStandIn;
  beforeAll(async () => {
    standIn = await startQdrantStandIn();
  });
  afterAll(async () => {
    await standIn.close();
  });

  it('creates the collection and its tenant index once, and reopens without changing them', async () => {
    const vectors = { embedderId: 'test-embedder', dimensions: 8 };
    await openQdrantMemoryStore({ url: standIn.url, collection: 'memories', vectors });
    await openQdrantMemoryStore({ url: standIn.url, collection: 'memories', vectors });
    const collection = standIn.collections.get('memories');
    expect(collection?.indexes.get('userId')).toEqual({ type: 'keyword', isTenant: true });
    expect(collection?.dense.get('dense')).toEqual({ size: 8, distance: 'Cosine' });
    expect(collection?.sparse.get('bm25')).toEqual({ modifier: 'idf' });
    expect(standIn.requests.filter((request) => request === 'PUT /collections/memories')).toHaveLength(1);
    await expect(
      openQdrantMemoryStore({
        url: standIn.url,
        collection: 'memories',
        vectors: { embedderId: 'other', dimensions: 8 },
      }),
    ).rejects.toThrow(/re-index/);
    await expect(
      openQdrantMemoryStore({
        url: standIn.url,
        collection: 'memories',
        vectors: { ...vectors, dimensions: 16 },
      }),
    ).rejects.toThrow(/re-index/);
  });

  it('reports a refusal as not retryable and an unreachable server as retryable', async () => {
    const refused = await openQdrantMemoryStore({ url: standIn.url, collection: 'bad name!' }).catch(
      (error) => error,
    );
    expect(refused).toBeInstanceOf(MemoryStoreError);
    expect(refused).toMatchObject({ retryable: false });
    const gone = await startQdrantStandIn();
    await gone.close();
    const unreachable = await openQdrantMemoryStore({ url: gone.url, collection: 'memories' }).catch(
      (error) => error,
    );
    expect(unreachable).toBeInstanceOf(MemoryStoreError);
    expect(unreachable).toMatchObject({ retryable: true });
  });

  it('two people inserting the same id at once: one is stored, the other refused, nothing overwritten', async () => {
    const store = await openQdrantMemoryStore({ url: standIn.url, collection: 'race' });
    const id = randomUUID();
    const memory = (userId: string, content: string): Memory => ({
      id,
      userId,
      scope: 'user',
      content,
      category: 'fact',
      source: 'user_explicit',
      createdAt: 1_700_000_000_000,
      updatedAt: 1_700_000_000_000,
      hash: createHash('sha256').update(content).digest('hex'),
      metadata: {},
    });
    const outcomes = await Promise.allSettled([
      store.insert({ memory: memory('alice', 'Alice keeps her spare key under the mat') }),
      store.insert({ memory: memory('mallory', 'Mallory planted this') }),
    ]);
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refused = outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toBeInstanceOf(MemoryIdTakenError);
    const winner = outcomes[0]?.status === 'fulfilled' ? 'alice' : 'mallory';
    const loser = winner === 'alice' ? 'mallory' : 'alice';
    expect((await store.get({ userId: winner, id }))?.userId).toBe(winner);
    expect(await store.get({ userId: loser, id })).toBeUndefined();
    // A batch with one taken id writes none of its points.
    const fresh = randomUUID();
    const batch = [
      { memory: { ...memory('alice', 'A fresh fact'), id: fresh } },
      { memory: memory('alice', 'Another claim on the taken id') },
    ];
    await expect(store.insertMany({ items: batch })).rejects.toBeInstanceOf(MemoryIdTakenError);
    expect(await store.get({ userId: 'alice', id: fresh })).toBeUndefined();
  });

  it('refuses a Qdrant server too old for insert-only writes, naming the version to deploy', async () => {
    const old = await startQdrantStandIn({ version: '1.15.4' });
    try {
      const refused = await openQdrantMemoryStore({ url: old.url, collection: 'memories' }).catch(
        (error) => error,
      );
      expect(refused).toBeInstanceOf(MemoryStoreError);
      expect(refused).toMatchObject({ retryable: false });
      expect(String(refused.message)).toMatch(/1\.15\.4 is too old.*v1\.19\.0/u);
    } finally {
      await old.close();
    }
  });
});
