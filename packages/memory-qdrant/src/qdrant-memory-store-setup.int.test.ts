import { MemoryStoreError } from '@nexus/memory';
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
});
