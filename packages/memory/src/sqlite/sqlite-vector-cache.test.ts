import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { contentHash } from '../model/content-hash.ts';
import type { Memory } from '../model/memory.ts';
import type { MemoryStore } from '../model/memory-store.ts';
import { createHashedEmbedder } from '../testing/hashed-embedder.ts';
import { createSqliteMemoryStore } from './sqlite-memory-store.ts';

const embedder = createHashedEmbedder({ dimensions: 48 });
const vectors = { embedderId: embedder.id, dimensions: 48 };
const WORDS = 'tea jazz kyoto piano harbour garden dog cat bicycle sushi winter books chess rent'.split(' ');

function memoryOf(content: string): Memory {
  return {
    id: randomUUID(),
    userId: 'ada',
    scope: 'user',
    content,
    category: 'fact',
    source: 'inferred',
    createdAt: 1,
    updatedAt: 1,
    hash: contentHash(content),
    metadata: {},
  };
}

const embed = async (text: string) => (await embedder.embed({ texts: [text] }))[0] ?? new Float32Array(48);

describe('SQLite memory store: the quantised vector cache stays in step with the file', () => {
  let directory: string;
  let cached: MemoryStore;
  let exact: MemoryStore;
  beforeEach(async () => {
    directory = mkdtempSync(join(tmpdir(), 'nexus-vector-cache-'));
    const path = join(directory, 'memory.sqlite');
    cached = createSqliteMemoryStore({
      path,
      vectors,
      vectorCache: { minVectors: 1, buildInBackground: false },
    });
    exact = createSqliteMemoryStore({ path, vectors, vectorCache: false });
    const contents = Array.from(
      { length: 400 },
      (_, index) => `${WORDS[index % WORDS.length]} ${WORDS[(index * 7) % WORDS.length]} note ${index}`,
    );
    const embeddings = await embedder.embed({ texts: contents });
    await cached.insertMany({
      items: contents.map((content, index) => ({ memory: memoryOf(content), embedding: embeddings[index] })),
    });
  });
  afterEach(async () => {
    await cached.close();
    await exact.close();
    rmSync(directory, { recursive: true, force: true });
  });

  /**
   * The dense channel alone (no query words), as a store answers it: each memory with its
   * relevance, in order. Both paths cut a group of equally distant memories by rowid, so the
   * members must match too, not just the scores.
   */
  const dense = async (store: MemoryStore, text: string) => {
    const hits = await store.search({ userId: 'ada', text: '', embedding: await embed(text), limit: 20 });
    return hits.map((hit) => `${hit.memory.content}:${hit.relevance}`);
  };
  const top = async (store: MemoryStore, text: string) =>
    (await store.search({ userId: 'ada', text: '', embedding: await embed(text), limit: 1 }))[0]?.memory
      .content;

  it('follows its own inserts, updates and deletes', async () => {
    expect(await dense(cached, 'tea jazz')).toEqual(await dense(exact, 'tea jazz'));
    const added = memoryOf('zebra quokka');
    await cached.insert({ memory: added, embedding: await embed('zebra quokka') });
    expect(await top(cached, 'zebra quokka')).toBe('zebra quokka');
    await cached.update({
      memory: { ...added, content: 'walrus narwhal', hash: contentHash('walrus narwhal') },
      embedding: await embed('walrus narwhal'),
    });
    expect(await top(cached, 'walrus narwhal')).toBe('walrus narwhal');
    expect(await dense(cached, 'zebra quokka')).toEqual(await dense(exact, 'zebra quokka'));
    await cached.delete({ userId: 'ada', id: added.id });
    expect(await dense(cached, 'walrus narwhal')).toEqual(await dense(exact, 'walrus narwhal'));
    expect((await dense(cached, 'walrus narwhal')).some((hit) => hit.startsWith('walrus'))).toBe(false);
  });

  it('drops what it holds when another connection writes to the file', async () => {
    expect(await dense(cached, 'tea jazz')).toEqual(await dense(exact, 'tea jazz'));
    const added = memoryOf('zebra quokka');
    await exact.insert({ memory: added, embedding: await embed('zebra quokka') });
    expect(await top(cached, 'zebra quokka')).toBe('zebra quokka');
    await exact.delete({ userId: 'ada', id: added.id });
    expect(await dense(cached, 'zebra quokka')).toEqual(await dense(exact, 'zebra quokka'));
    expect((await dense(cached, 'zebra quokka')).some((hit) => hit.startsWith('zebra'))).toBe(false);
    await exact.reset({ userId: 'ada' });
    expect(await dense(cached, 'tea jazz')).toEqual([]);
  });

  it('indexes a person once they reach minVectors, by its own writes or another connection’s', async () => {
    const path = join(directory, 'growing.sqlite');
    const store = createSqliteMemoryStore({
      path,
      vectors,
      vectorCache: { minVectors: 3, buildInBackground: false },
    });
    const other = createSqliteMemoryStore({ path, vectors, vectorCache: false });
    const add = async (target: MemoryStore, content: string) =>
      target.insert({ memory: memoryOf(content), embedding: await embed(content) });
    const indexed = () => store.vectorCacheStats()?.people.map((person) => person.vectors);
    try {
      await add(store, 'tea jazz');
      await add(store, 'kyoto piano');
      await dense(store, 'tea');
      expect(indexed()).toEqual([]);
      await add(store, 'harbour garden');
      await dense(store, 'tea');
      expect(indexed()).toEqual([3]);
      await other.reset({ userId: 'ada' });
      await add(other, 'dog cat');
      await dense(store, 'dog');
      expect(indexed()).toEqual([]);
      await add(other, 'bicycle sushi');
      await add(other, 'winter books');
      expect(await dense(store, 'dog')).toEqual(await dense(other, 'dog'));
      expect(indexed()).toEqual([3]);
    } finally {
      await store.close();
      await other.close();
    }
  });
});
