import { randomUUID } from 'node:crypto';
import { MemoryService, type MemoryStore } from '@nexus/memory';
import { openQdrantMemoryStore } from '@nexus/memory-qdrant';
import { silentLogger } from '@nexus/protocol';
import { type QdrantStandIn, startQdrantStandIn } from '@nexus/testkit/qdrant';
import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PersonLaneUnavailableError } from './person-lane-unavailable-error.ts';
import { redisPersonLane } from './redis-person-lane.ts';

// Two memory service replicas, each with its own Qdrant client and Redis connection, on one
// collection of the Qdrant stand-in, sharing the per-person lease in the real Redis.
let qdrant: QdrantStandIn;
let prefix: string;
const stores: MemoryStore[] = [];
const connections: Redis[] = [];

beforeEach(async () => {
  qdrant = await startQdrantStandIn();
  prefix = `test-lane-${randomUUID()}`;
});
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
  for (const connection of connections.splice(0)) connection.disconnect();
  await qdrant.close();
});

async function replica(): Promise<MemoryService> {
  const store = await openQdrantMemoryStore({ url: qdrant.url, collection: 'replicas' });
  stores.push(store);
  const redis = new Redis('redis://127.0.0.1:6379', { maxRetriesPerRequest: 1 });
  connections.push(redis);
  return new MemoryService({ store, lane: redisPersonLane({ redis, prefix, logger: silentLogger }) });
}

async function replicas(): Promise<[MemoryService, MemoryService]> {
  const first = await replica();
  return [first, await replica()];
}

/** The same fact as the seed's, said otherwise: another hash, the same meaning tokens. */
const restatements = ['Alice is living in Porto', 'Alice living in Porto', 'Alice lives in Porto now'];

describe('memory service replicas on one collection', () => {
  it('turns 50 concurrent identical adds for one person, split across two replicas, into one fact', async () => {
    const [left, right] = await replicas();
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        (index % 2 === 0 ? left : right).add({ userId: 'alice', content: 'Alice has a cat named Miso' }),
      ),
    );
    expect(results.filter((result) => result.action === 'inserted')).toHaveLength(1);
    const stored = await left.list({ userId: 'alice' });
    expect(stored.map((memory) => memory.content)).toEqual(['Alice has a cat named Miso']);
    expect(new Set(results.map((result) => result.memory.id))).toEqual(new Set([stored[0]?.id]));
  });

  it('keeps a correction made on one replica while the other restates the fact it read before', async () => {
    const [left, right] = await replicas();
    const people = Array.from({ length: 8 }, (_, index) => `person-${index}`);
    const seeded = await Promise.all(
      people.map(async (userId) => {
        const seed = await left.add({ userId, content: 'Alice lives in Porto' });
        // The edit goes out first, and the other replica's restatements read the memory while it is on its way.
        const correcting = left.update({ userId, id: seed.memory.id, content: 'Alice lived in Porto' });
        const adds = Array.from({ length: 6 }, (_, index) =>
          right.add({ userId, content: restatements[index % restatements.length]! }),
        );
        const [corrected] = await Promise.all([correcting, ...adds]);
        expect(corrected?.source).toBe('user_explicit');
        return { userId, id: seed.memory.id };
      }),
    );
    // In either order the correction keeps its provenance: a restatement after it keeps
    // `user_explicit`; one that read the memory before it and wrote after would put back `inferred`.
    for (const { userId, id } of seeded) {
      const stored = await right.list({ userId });
      expect(stored.map((memory) => [memory.id, memory.source])).toEqual([[id, 'user_explicit']]);
    }
  });

  it('never writes back a deleted memory from a restatement on the other replica', async () => {
    const [left, right] = await replicas();
    const seeded = await left.add({ userId: 'alice', content: 'Alice lives in Porto' });
    const adds = Array.from({ length: 12 }, (_, index) =>
      right.add({ userId: 'alice', content: restatements[index % restatements.length]! }),
    );
    const deleted = await left.delete({ userId: 'alice', id: seeded.memory.id });
    await Promise.all(adds);
    expect(deleted).toEqual({ deleted: true });
    expect(await right.get({ userId: 'alice', id: seeded.memory.id })).toBeUndefined();
    const porto = (await right.list({ userId: 'alice' })).filter((memory) =>
      memory.content.includes('Porto'),
    );
    expect(porto.length).toBeLessThanOrEqual(1);
  });

  it('refuses a write retryably, storing nothing, when Redis cannot be reached', async () => {
    const store = await openQdrantMemoryStore({ url: qdrant.url, collection: 'replicas' });
    stores.push(store);
    const redis = new Redis('redis://127.0.0.1:9', {
      maxRetriesPerRequest: 1,
      retryStrategy: () => 50,
    });
    redis.on('error', () => {});
    connections.push(redis);
    const service = new MemoryService({
      store,
      lane: redisPersonLane({ redis, prefix, waitMs: 300, logger: silentLogger }),
    });
    const refused = await service
      .add({ userId: 'alice', content: 'Alice has a cat' })
      .catch((error) => error);
    expect(refused).toBeInstanceOf(PersonLaneUnavailableError);
    expect(refused).toMatchObject({ code: 'memory_unavailable', retryable: true });
    expect(await service.list({ userId: 'alice' })).toEqual([]);
  });
});
