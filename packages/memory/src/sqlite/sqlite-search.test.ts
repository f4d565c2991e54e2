import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cosineSimilarity } from '../embedders/embedder.ts';
import { contentHash } from '../model/content-hash.ts';
import type { Memory, MemoryScope } from '../model/memory.ts';
import type { MemoryStore } from '../model/memory-store.ts';
import { createHashedEmbedder } from '../testing/hashed-embedder.ts';
import { seededRandom } from '../testing/seeded-random.ts';
import { createSqliteMemoryStore } from './sqlite-memory-store.ts';

const embedder = createHashedEmbedder({ dimensions: 32 });
const vectors = { embedderId: embedder.id, dimensions: 32 };
const WORDS = 'tea jazz kyoto piano harbour garden dog cat bicycle sushi winter books chess rent'.split(' ');

function memoryOf(userId: string, content: string, scope: MemoryScope = 'user', sessionId?: string): Memory {
  const memory: Memory = {
    id: randomUUID(),
    userId,
    scope,
    content,
    category: 'fact',
    source: 'inferred',
    createdAt: 1,
    updatedAt: 1,
    hash: contentHash(content),
    metadata: {},
  };
  if (sessionId) memory.sessionId = sessionId;
  return memory;
}

describe('SQLite memory store: search partitions', () => {
  let store: MemoryStore;
  beforeEach(() => {
    store = createSqliteMemoryStore({ path: ':memory:', vectors });
  });
  afterEach(async () => {
    await store.close();
  });

  const insert = async (memory: Memory) => {
    const [embedding] = await embedder.embed({ texts: [memory.content] });
    await store.insert({ memory, embedding });
    return memory;
  };
  const ids = (hits: Array<{ memory: Memory }>) => hits.map((hit) => hit.memory.id).sort();

  it('ranks a session’s linked memories by the same cosine as the person’s exact nearest search', async () => {
    const random = seededRandom(5);
    const told: Memory[] = [];
    for (let index = 0; index < 30; index += 1) {
      const words = Array.from({ length: 3 }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' ');
      told.push(
        await insert(memoryOf('ada', `${words} ${index}`, 'user', index % 2 === 0 ? 'trip' : 'home')),
      );
    }
    const [query] = await embedder.embed({ texts: ['jazz piano winter'] });
    // Text that matches no memory: the dense channel alone orders the session's memories.
    const session = await store.search({
      userId: 'ada',
      text: 'zzz',
      embedding: query,
      sessionId: 'trip',
      limit: 40,
    });
    const inTrip = new Set(told.filter((_, index) => index % 2 === 0).map((memory) => memory.id));
    const nearest = await store.nearest({ userId: 'ada', embedding: query!, limit: 100 });
    // Equal vectors (the same words) tie; the store orders ties by rowid, here the order told.
    const toldAt = new Map(told.map((memory, index) => [memory.id, index]));
    const expected = nearest
      .filter((hit) => inTrip.has(hit.memory.id))
      .sort(
        (left, right) =>
          right.similarity - left.similarity ||
          (toldAt.get(left.memory.id) ?? 0) - (toldAt.get(right.memory.id) ?? 0),
      );
    expect(expected).toHaveLength(15);
    expect(session.map((hit) => hit.memory.id)).toEqual(expected.map((hit) => hit.memory.id));
  });

  it('keeps a session id shared by two people apart, and follows links added later', async () => {
    const adaTold = await insert(memoryOf('ada', 'Wants a window seat to Kyoto', 'user', 'trip'));
    const adaSession = await insert(memoryOf('ada', 'Kyoto hotel booked for May', 'session', 'trip'));
    await insert(memoryOf('ada', 'Kyoto was rainy last year'));
    await insert(memoryOf('bob', 'Kyoto trains are his hobby', 'user', 'trip'));
    const search = (options: { userId: string; sessionId?: string; scopes?: MemoryScope[] }) =>
      store.search({ ...options, text: 'Kyoto', limit: 10 });
    expect(ids(await search({ userId: 'ada', sessionId: 'trip' }))).toEqual(
      ids([{ memory: adaTold }, { memory: adaSession }]),
    );
    expect(ids(await search({ userId: 'ada', scopes: ['user'] }))).not.toContain(adaSession.id);
    expect((await search({ userId: 'bob', sessionId: 'trip' })).map((hit) => hit.memory.content)).toEqual([
      'Kyoto trains are his hobby',
    ]);
    expect(await search({ userId: 'ada', sessionId: 'later' })).toEqual([]);
    await store.linkSession({ userId: 'ada', memoryId: adaTold.id, sessionId: 'later' });
    // Linking someone else's memory id is a no-op.
    await store.linkSession({ userId: 'bob', memoryId: adaTold.id, sessionId: 'later' });
    expect(ids(await search({ userId: 'ada', sessionId: 'later' }))).toEqual([adaTold.id]);
    expect(await search({ userId: 'bob', sessionId: 'later' })).toEqual([]);
    // An update rewrites the text index and keeps the memory in every session it was linked to.
    const [embedding] = await embedder.embed({ texts: ['Wants an aisle seat to Kyoto'] });
    await store.update({ memory: { ...adaTold, content: 'Wants an aisle seat to Kyoto' }, embedding });
    const [hit] = await store.search({ userId: 'ada', sessionId: 'later', text: 'aisle', limit: 5 });
    expect(hit?.memory.content).toBe('Wants an aisle seat to Kyoto');
    expect(await store.search({ userId: 'ada', sessionId: 'later', text: 'window', limit: 5 })).toEqual([]);
  });

  it('finds a session’s weak lexical match however many better matches the person has elsewhere', async () => {
    const lexical = createSqliteMemoryStore({ path: ':memory:' });
    try {
      const items = Array.from({ length: 300 }, (_, index) => ({
        memory: memoryOf('ada', `Kyoto Kyoto ${index}`),
      }));
      await lexical.insertMany({ items });
      const weak = memoryOf('ada', 'Asked about many things today, among them Kyoto', 'session', 'late');
      await lexical.insert({ memory: weak });
      for (const options of [{ sessionId: 'late' }, { scopes: ['session' as const] }]) {
        const hits = await lexical.search({ userId: 'ada', text: 'kyoto', limit: 5, ...options });
        expect(hits.map((hit) => hit.memory.id)).toEqual([weak.id]);
        expect(hits[0]?.relevance).toBe(1);
      }
    } finally {
      await lexical.close();
    }
  });

  it('ranks the dense channel exactly: the top matches by cosine over all of the person’s memories', async () => {
    const random = seededRandom(7);
    const pick = () => WORDS[Math.floor(random() * WORDS.length)] ?? 'tea';
    const mine: Array<{ memory: Memory; embedding: Float32Array }> = [];
    const items: Array<{ memory: Memory; embedding?: Float32Array }> = [];
    for (const userId of ['ada', 'bob']) {
      for (let index = 0; index < 400; index++) {
        const memory = memoryOf(userId, `${pick()} ${pick()} ${pick()} ${pick()} ${index}`);
        const [embedding] = await embedder.embed({ texts: [memory.content] });
        if (!embedding) throw new Error('no embedding');
        items.push({ memory, embedding });
        if (userId === 'ada') mine.push({ memory, embedding });
      }
    }
    await store.insertMany({ items });
    for (let query = 0; query < 20; query++) {
      // Words outside the memories' vocabulary: no lexical match, so order is the dense channel's.
      const [embedding] = await embedder.embed({ texts: [`${pick()} zebra ${pick()} quokka`] });
      if (!embedding) throw new Error('no embedding');
      const hits = await store.search({ userId: 'ada', text: 'zebra quokka', embedding, limit: 15 });
      const expected = mine
        .map(({ memory, embedding: vector }) => ({
          id: memory.id,
          similarity: cosineSimilarity(vector, embedding),
        }))
        .sort((left, right) => right.similarity - left.similarity);
      expect(hits).toHaveLength(15);
      const fifteenth = expected[14]?.similarity ?? 0;
      for (const hit of hits) {
        const similarity = expected.find((entry) => entry.id === hit.memory.id)?.similarity ?? -2;
        expect(similarity).toBeGreaterThanOrEqual(fifteenth - 1e-6);
      }
      // Relevance never rises down the list.
      for (let index = 1; index < hits.length; index++) {
        expect(hits[index]?.relevance ?? 0).toBeLessThanOrEqual(hits[index - 1]?.relevance ?? 0);
      }
      const nearest = await store.nearest({ userId: 'ada', embedding, limit: 1 });
      expect(nearest[0]?.similarity).toBeCloseTo(expected[0]?.similarity ?? 0, 5);
    }
  });

  it('answers a session search as FTS5 does after searches that found none of its words', async () => {
    await insert(memoryOf('ada', 'Booked a ryokan in Kyoto for the spring', 'session', 'trip'));
    const search = (on: MemoryStore, text: string, contextText?: string) =>
      on.search({ userId: 'ada', text, contextText, sessionId: 'trip', limit: 10 });
    // Lexical only (no query vector): what FTS5 matches is all there is. No stop words ("the"…),
    // which most memories hold.
    expect(await search(store, 'weather forecast')).toEqual([]);
    expect(await search(store, 'tomorrow?', 'weather forecast')).toEqual([]);
    const found = await search(store, 'ryokan booked?', 'weather forecast');
    expect(found.map((hit) => hit.memory.content)).toEqual(['Booked a ryokan in Kyoto for the spring']);
    expect(await search(store, 'sushi tonight')).toEqual([]);
    await insert(memoryOf('ada', 'Expects rain in Kyoto all week', 'session', 'trip'));
    const later = await search(store, 'rain?', 'sushi tonight');

    // The same file searched by a store that never missed: the same hits, the same relevance.
    const fresh = createSqliteMemoryStore({ path: ':memory:', vectors });
    try {
      for (const hit of await store.sessionMemories({ sessionId: 'trip', userId: 'ada' }))
        await fresh.insert({ memory: hit, embedding: (await embedder.embed({ texts: [hit.content] }))[0] });
      expect(await search(fresh, 'ryokan booked?', 'weather forecast')).toEqual(found);
      expect(await search(fresh, 'rain?', 'sushi tonight')).toEqual(later);
      expect(later.map((hit) => hit.memory.content)).toEqual(['Expects rain in Kyoto all week']);
    } finally {
      await fresh.close();
    }
  });

  it('finds a word it had found absent once this store or another connection wrote it', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'nexus-misses-'));
    const path = join(directory, 'memory.db');
    const gateway = createSqliteMemoryStore({ path });
    const other = createSqliteMemoryStore({ path });
    const told = (content: string) => memoryOf('ada', content, 'session', 'trip');
    const search = (text: string) => gateway.search({ userId: 'ada', text, sessionId: 'trip', limit: 10 });
    const contents = (hits: Array<{ memory: Memory }>) => hits.map((hit) => hit.memory.content).sort();
    try {
      await gateway.insert({ memory: told('Booked a ryokan in Kyoto') });
      expect(await search('weather forecast')).toEqual([]);
      expect(await search('weather forecast')).toEqual([]);
      // This store's own write: the words known absent are asked again.
      await gateway.insert({ memory: told('Checks the weather forecast daily') });
      expect(contents(await search('weather forecast'))).toEqual(['Checks the weather forecast daily']);
      expect(await search('sushi umbrella')).toEqual([]);
      expect(await search('sushi umbrella')).toEqual([]);
      // Another connection's commit, seen from the next pass of the event loop.
      await other.insert({ memory: told('Wants sushi near the station') });
      await new Promise((resolve) => setImmediate(resolve));
      expect(contents(await search('sushi umbrella'))).toEqual(['Wants sushi near the station']);
    } finally {
      await other.close();
      await gateway.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
