import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Embedder } from '../embedders/embedder.ts';
import { contentHash } from '../model/content-hash.ts';
import type { Memory } from '../model/memory.ts';
import { EmbedderMismatchError } from '../model/memory-errors.ts';
import { MemoryService } from '../service/memory-service.ts';
import { createHashedEmbedder } from '../testing/hashed-embedder.ts';
import { reindexSqliteStore } from './reindex-sqlite-store.ts';
import { createSqliteMemoryStore } from './sqlite-memory-store.ts';

let directory: string;
let path: string;
const old = createHashedEmbedder({ dimensions: 8 });
const next = createHashedEmbedder({ dimensions: 16 });
const spaceOf = (embedder: Embedder) => ({ embedderId: embedder.id, dimensions: embedder.dimensions });

/** Counts texts embedded and fails once `failAfter` texts were embedded. */
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

/** 30 memories each for two people, written straight to the store (no near-duplicate merging). */
async function seed(): Promise<void> {
  const store = createSqliteMemoryStore({ path, vectors: spaceOf(old) });
  const items = [];
  for (let index = 0; index < 30; index++) {
    for (const content of [
      `ann likes green tea number ${index}`,
      `bob rides a red bicycle number ${index}`,
    ]) {
      const memory: Memory = {
        id: randomUUID(),
        userId: content.slice(0, 3),
        scope: 'user',
        content,
        category: 'fact',
        source: 'user_explicit',
        createdAt: 1_000 + index,
        updatedAt: 1_000 + index,
        hash: contentHash(content),
        metadata: {},
      };
      items.push({ memory, embedding: (await old.embed({ texts: [content] }))[0]! });
    }
  }
  await store.insertMany({ items });
  await store.close();
}

async function open(embedder: Embedder | undefined) {
  const store = createSqliteMemoryStore({ path, ...(embedder ? { vectors: spaceOf(embedder) } : {}) });
  return { store, service: new MemoryService({ store, ...(embedder ? { embedder } : {}) }) };
}

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'nexus-reindex-'));
  path = join(directory, 'memory.sqlite');
  await seed();
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe('reindexSqliteStore', () => {
  it('moves every vector to the new embedder in one swap and refuses the old one afterwards', async () => {
    const progress: number[] = [];
    const result = await reindexSqliteStore({
      path,
      embedder: next,
      batchSize: 16,
      onProgress: ({ done, total }) => {
        expect(total).toBe(60);
        progress.push(done);
      },
    });
    expect(result).toMatchObject({ from: spaceOf(old), to: spaceOf(next), embedded: 60, total: 60 });
    expect(progress).toEqual([0, 16, 32, 48, 60]);
    expect(() => createSqliteMemoryStore({ path, vectors: spaceOf(old) })).toThrow(EmbedderMismatchError);
    const { store, service } = await open(next);
    expect((await service.stats({})).totalMemories).toBe(60);
    const nearest = await store.nearest({
      userId: 'ann',
      embedding: (await next.embed({ texts: ['ann likes green tea number 7'] }))[0]!,
      limit: 3,
    });
    expect(nearest[0]?.memory.content).toBe('ann likes green tea number 7');
    expect(nearest[0]?.similarity).toBeCloseTo(1, 5);
    await store.close();
  });

  it('leaves the store on the old embedder when it stops midway, and resumes from there', async () => {
    const failing = countingEmbedder(next, 40);
    await expect(reindexSqliteStore({ path, embedder: failing.embedder, batchSize: 10 })).rejects.toThrow(
      /went away/,
    );
    expect(failing.counter.texts).toBe(40);
    const before = await open(old);
    const hits = await before.service.search({ userId: 'bob', query: 'red bicycle' });
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.every((hit) => hit.content.startsWith('bob'))).toBe(true);
    // A memory added meanwhile on the old embedder is embedded by the resumed run too.
    await before.service.add({ userId: 'bob', content: 'bob owns a blue kayak' });
    await before.store.close();

    const resumed = countingEmbedder(next);
    const result = await reindexSqliteStore({ path, embedder: resumed.embedder, batchSize: 10 });
    expect(result.embedded).toBe(21);
    expect(resumed.counter.texts).toBe(21);
    const after = await open(next);
    expect((await after.service.stats({})).totalMemories).toBe(61);
    const kayak = await after.store.nearest({
      userId: 'bob',
      embedding: (await next.embed({ texts: ['bob owns a blue kayak'] }))[0]!,
      limit: 1,
    });
    expect(kayak[0]?.memory.content).toBe('bob owns a blue kayak');
    await after.store.close();
  });

  it('switches to lexical only with no embedder, and back again', async () => {
    await reindexSqliteStore({ path, embedder: undefined });
    const lexical = await open(undefined);
    expect(lexical.store.vectorSpace).toBeUndefined();
    expect((await lexical.service.search({ userId: 'ann', query: 'green tea' })).length).toBeGreaterThan(0);
    await lexical.store.close();
    // Any embedder may now open it; reindexing records the new one.
    await reindexSqliteStore({ path, embedder: next });
    const reopened = await open(next);
    expect(reopened.store.vectorSpace).toEqual(spaceOf(next));
    await reopened.store.close();
  });
});
