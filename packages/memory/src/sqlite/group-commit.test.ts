import { randomUUID } from 'node:crypto';
import { GroupCommit } from '@nexus/sqlite-kit';
import { describe, expect, it } from 'vitest';
import { contentHash } from '../model/content-hash.ts';
import type { Memory } from '../model/memory.ts';
import { MemoryStoreError } from '../model/memory-errors.ts';
import { createHashedEmbedder } from '../testing/hashed-embedder.ts';
import { createSqliteMemoryStore } from './sqlite-memory-store.ts';

describe('GroupCommit', () => {
  it('commits what was queued in one turn together and settles each item by its own outcome', async () => {
    const commits: number[][] = [];
    const group = new GroupCommit<number>((items) => {
      commits.push([...items]);
      return items.map((item) => (item === 3 ? new Error('three') : undefined));
    });
    const results = await Promise.allSettled([1, 2, 3, 4].map((item) => group.add(item)));
    expect(commits).toEqual([[1, 2, 3, 4]]);
    expect(results.map((result) => result.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    const later = group.add(5);
    expect(group.pending((item) => item === 5)).toBe(true);
    group.flush();
    await later;
    expect(commits).toEqual([[1, 2, 3, 4], [5]]);
    expect(group.pending(() => true)).toBe(false);
  });

  it('rejects the whole group when the commit itself fails', async () => {
    const group = new GroupCommit<number>(() => {
      throw new Error('disk full');
    });
    const results = await Promise.allSettled([group.add(1), group.add(2)]);
    expect(results.every((result) => result.status === 'rejected')).toBe(true);
  });
});

describe('SQLite memory store: grouped inserts', () => {
  const embedder = createHashedEmbedder({ dimensions: 8 });
  const memoryOf = (userId: string, content: string): Memory => ({
    id: randomUUID(),
    userId,
    scope: 'user',
    content,
    category: 'fact',
    source: 'inferred',
    createdAt: 1,
    updatedAt: 1,
    hash: contentHash(content),
    metadata: {},
  });

  it('writes concurrent inserts, rejects only the bad one, and lets later calls see unsettled inserts', async () => {
    const store = createSqliteMemoryStore({
      path: ':memory:',
      vectors: { embedderId: embedder.id, dimensions: 8 },
    });
    try {
      const memories = Array.from({ length: 50 }, (_, index) =>
        memoryOf(`person-${index}`, `Likes tea ${index}`),
      );
      const embeddings = await embedder.embed({ texts: memories.map((memory) => memory.content) });
      const bad = memoryOf('person-0', 'Has a wrong-sized vector');
      const results = await Promise.allSettled([
        ...memories.map((memory, index) => store.insert({ memory, embedding: embeddings[index] })),
        store.insert({ memory: bad, embedding: new Float32Array(3) }),
      ]);
      expect(results.slice(0, 50).every((result) => result.status === 'fulfilled')).toBe(true);
      const rejected = results[50];
      expect(rejected?.status === 'rejected' && rejected.reason).toBeInstanceOf(MemoryStoreError);
      expect((await store.stats()).totalMemories).toBe(50);
      expect(await store.get({ userId: 'person-0', id: bad.id })).toBeUndefined();
      expect((await store.search({ userId: 'person-7', text: 'tea', limit: 5 }))[0]?.memory.id).toBe(
        memories[7]?.id,
      );

      // Without awaiting the insert, a read of the same person and a delete both see it.
      const unawaited = memoryOf('ada', 'Owns a red bicycle');
      const inserted = store.insert({ memory: unawaited });
      expect((await store.findByHash({ userId: 'ada', hash: unawaited.hash }))?.id).toBe(unawaited.id);
      const again = memoryOf('bob', 'Owns a blue bicycle');
      const second = store.insert({ memory: again });
      expect(await store.delete({ userId: 'bob', id: again.id })).toBe(true);
      await Promise.all([inserted, second]);
      expect(await store.get({ userId: 'bob', id: again.id })).toBeUndefined();
    } finally {
      await store.close();
    }
  });
});
