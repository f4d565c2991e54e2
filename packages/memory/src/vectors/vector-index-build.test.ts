import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { contentHash } from '../model/content-hash.ts';
import type { Memory } from '../model/memory.ts';
import { createSqliteMemoryStore, type SqliteMemoryStore } from '../sqlite/sqlite-memory-store.ts';
import type { VectorCacheOptions } from '../sqlite/sqlite-vector-cache.ts';
import { createHashedEmbedder } from '../testing/hashed-embedder.ts';

const embedder = createHashedEmbedder({ dimensions: 48 });
const vectors = { embedderId: embedder.id, dimensions: 48 };
const WORDS = 'tea jazz kyoto piano harbour garden dog cat bicycle sushi winter books chess rent'.split(' ');
const embed = async (text: string) => (await embedder.embed({ texts: [text] }))[0] ?? new Float32Array(48);

function memoryOf(userId: string, content: string, updatedAt = 1): Memory {
  return {
    id: randomUUID(),
    userId,
    scope: 'user',
    content,
    category: 'fact',
    source: 'inferred',
    createdAt: updatedAt,
    updatedAt,
    hash: contentHash(content),
    metadata: {},
  };
}

async function fill(store: SqliteMemoryStore, memories: Memory[]): Promise<void> {
  const embeddings = await embedder.embed({ texts: memories.map((memory) => memory.content) });
  await store.insertMany({
    items: memories.map((memory, index) => ({ memory, embedding: embeddings[index] })),
  });
}

const notes = (userId: string, count: number, updatedAt = 1) =>
  Array.from({ length: count }, (_, index) =>
    memoryOf(
      userId,
      `${WORDS[index % WORDS.length]} ${WORDS[(index * 5) % WORDS.length]} note ${index}`,
      updatedAt,
    ),
  );

const dense = async (store: SqliteMemoryStore, userId: string, text: string, limit = 20) =>
  (await store.search({ userId, text: '', embedding: await embed(text), limit })).map(
    (hit) => `${hit.memory.id}:${hit.relevance}`,
  );

describe('SQLite memory store: building and bounding the quantised vector cache', () => {
  let directory: string;
  let path: string;
  const opened: SqliteMemoryStore[] = [];
  const open = (vectorCache: VectorCacheOptions | false) => {
    const store = createSqliteMemoryStore({ path, vectors, vectorCache });
    opened.push(store);
    return store;
  };
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'nexus-vector-build-'));
    path = join(directory, 'memory.sqlite');
  });
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('cuts a group of equally distant memories by rowid on the exact scan and through the index', async () => {
    const exact = open(false);
    const cached = open({ minVectors: 1, buildInBackground: false });
    // 150 memories with the same words, so the same vector: a top 40 cuts that group.
    const twins = Array.from({ length: 150 }, () => memoryOf('ada', 'tea jazz kyoto'));
    await fill(exact, [...notes('ada', 100), ...twins]);
    const expected = twins.slice(0, 40).map((memory) => memory.id);
    const kept = async (store: SqliteMemoryStore) =>
      (await store.search({ userId: 'ada', text: '', embedding: await embed('tea jazz kyoto'), limit: 40 }))
        .map((hit) => hit.memory.id)
        .sort();
    expect(await kept(exact)).toEqual([...expected].sort());
    expect(await kept(cached)).toEqual([...expected].sort());
    expect(cached.vectorCacheStats()?.people.map((person) => person.userId)).toEqual(['ada']);
  });

  it('answers exactly while the index builds in the background, and the index keeps the writes made meanwhile', async () => {
    const exact = open(false);
    await fill(exact, notes('ada', 3_000));
    const cached = open({ minVectors: 1_000, buildSliceRows: 250, warmOnOpen: false });
    const first = await dense(cached, 'ada', 'tea jazz');
    expect(first).toEqual(await dense(exact, 'ada', 'tea jazz'));
    // The first search started the build and did not wait for it.
    expect(cached.vectorCacheStats()).toMatchObject({ building: ['ada'], people: [] });
    const added = memoryOf('ada', 'zebra quokka');
    await cached.insert({ memory: added, embedding: await embed('zebra quokka') });
    const gone = (await cached.list({ userId: 'ada', limit: 1, offset: 0 }))[0];
    if (!gone) throw new Error('the person has memories');
    await cached.delete({ userId: 'ada', id: gone.id });
    expect(await cached.warmVectorIndex({ userId: 'ada' })).toBe(true);
    expect(cached.vectorCacheStats()).toMatchObject({
      building: [],
      people: [{ userId: 'ada', vectors: 3_000 }],
    });
    for (const text of ['zebra quokka', 'tea jazz', 'kyoto piano', gone.content]) {
      expect(await dense(cached, 'ada', text)).toEqual(await dense(exact, 'ada', text));
    }
  });

  it('keeps all people within the byte budget, least recently searched evicted first', async () => {
    const writer = open(false);
    await fill(writer, [...notes('ada', 400), ...notes('bob', 400)]);
    // Room for one person's index (~120 bytes a vector at 48 dimensions, with headroom), not two.
    const cached = open({ minVectors: 100, maxBytes: 70_000, warmOnOpen: false });
    expect(await cached.warmVectorIndex({ userId: 'ada' })).toBe(true);
    expect(await cached.warmVectorIndex({ userId: 'bob' })).toBe(true);
    const stats = cached.vectorCacheStats();
    expect(stats?.people.map((person) => person.userId)).toEqual(['bob']);
    expect(stats?.bytes).toBeLessThanOrEqual(70_000);
    expect(stats?.bytes).toBeGreaterThan(0);
    expect(await dense(cached, 'ada', 'tea jazz')).toEqual(await dense(writer, 'ada', 'tea jazz'));
    // A person larger than the whole budget is never cached and still answered exactly.
    const tiny = open({ minVectors: 100, maxBytes: 10_000, warmOnOpen: false });
    expect(await tiny.warmVectorIndex({ userId: 'ada' })).toBe(false);
    expect(await dense(tiny, 'ada', 'kyoto')).toEqual(await dense(writer, 'ada', 'kyoto'));
    expect(tiny.vectorCacheStats()).toMatchObject({ bytes: 0, people: [], building: [] });
  });

  it('keeps its indexes when another connection only opens the file', async () => {
    const cached = open({ minVectors: 100, warmOnOpen: false });
    await fill(cached, notes('ada', 400));
    expect(await cached.warmVectorIndex({ userId: 'ada' })).toBe(true);
    const reader = open(false);
    expect(await dense(cached, 'ada', 'tea jazz')).toEqual(await dense(reader, 'ada', 'tea jazz'));
    expect(cached.vectorCacheStats()).toMatchObject({ people: [{ userId: 'ada' }], building: [] });
  });

  it('warms the most recently written people that fit on open', async () => {
    const writer = open(false);
    await fill(writer, [...notes('ada', 400, 1_000), ...notes('bob', 400, 2_000), ...notes('cy', 50, 3_000)]);
    const cached = open({ minVectors: 100, maxBytes: 70_000 });
    await vi.waitFor(() => expect(cached.vectorCacheStats()?.people).toHaveLength(1));
    // cy is the most recent but too small to need an index; bob fills the budget, ada waits.
    expect(cached.vectorCacheStats()?.people.map((person) => person.userId)).toEqual(['bob']);
  });
});
