import { randomUUID } from 'node:crypto';
import { BM25_PARAMETERS, indexTokens, lexicalTerms, MemoryService } from '@nexus/memory';
import { type QdrantStandIn, startQdrantStandIn } from '@nexus/testkit/qdrant';
import { QdrantClient } from '@qdrant/js-client-rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openQdrantMemoryStore } from './qdrant-memory-store.ts';
import { sparseDocumentVector, sparseQueryVector, termIndex } from './sparse-bm25.ts';

let standIn: QdrantStandIn;
beforeAll(async () => {
  standIn = await startQdrantStandIn();
});
afterAll(async () => {
  await standIn.close();
});

describe('sparse BM25 terms on Qdrant', () => {
  it("are the embedded index's tokens (Porter stems), with the same k1 and b", () => {
    const text = 'She was running marathons in Zürich';
    const vector = sparseDocumentVector(text);
    const stems = [...new Set(indexTokens(text))];
    expect(stems).toContain('marathon');
    expect(stems).toContain('zurich');
    expect(vector.indices).toEqual(stems.map(termIndex));
    // Six terms, each once: tf·(k1+1) / (tf + k1·(1 − b + b·6/12)).
    expect(stems).toHaveLength(6);
    const { k1, b } = BM25_PARAMETERS;
    const expected = (1 * (k1 + 1)) / (1 + k1 * (1 - b + (b * 6) / 12));
    for (const value of vector.values) expect(value).toBeCloseTo(expected, 12);
    // The query is weighted like the embedded store's: content words 1, stop words 0.1.
    const query = sparseQueryVector('who runs marathons');
    const weights = new Map(query.indices.map((index, position) => [index, query.values[position]]));
    expect(weights.get(termIndex('run'))).toBe(1);
    expect(weights.get(termIndex('marathon'))).toBe(1);
    expect(weights.get(termIndex('who'))).toBe(0.1);
  });

  it('a new collection is written and searched with stems; one created before keeps its own terms', async () => {
    const fresh = `memories_${randomUUID().replaceAll('-', '')}`;
    const store = await openQdrantMemoryStore({ url: standIn.url, collection: fresh });
    const service = new MemoryService({ store });
    await service.add({ userId: 'ada', content: 'Ada is running along the harbour on Sundays' });
    await service.add({ userId: 'ada', content: 'Ada likes tea in the morning' });
    // "run" meets "running" only as a Porter stem (the light fold makes it "runn").
    const hits = await service.search({ userId: 'ada', query: 'Where does she run?' });
    expect(hits.map((hit) => hit.content)).toEqual(['Ada is running along the harbour on Sundays']);
    await store.close();

    // A collection as the previous version created it: no `sparseTerms` in its metadata, points
    // written with the light fold. Opening it keeps querying with the light fold.
    const client = new QdrantClient({ url: standIn.url, checkCompatibility: false });
    const legacy = `memories_${randomUUID().replaceAll('-', '')}`;
    await client.createCollection(legacy, { vectors: {}, sparse_vectors: { bm25: { modifier: 'idf' } } });
    const old = await openQdrantMemoryStore({ url: standIn.url, collection: legacy });
    const oldService = new MemoryService({ store: old });
    await oldService.add({ userId: 'bo', content: 'Bo cycled across the mountains' });
    await oldService.add({ userId: 'bo', content: 'Bo likes coffee' });
    const stored = await client.scroll(legacy, { with_vector: true, limit: 10 });
    const vectors = stored.points.map(
      (point) => (point.vector as { bm25: { indices: number[] } }).bm25.indices,
    );
    expect(vectors).toContainEqual(lexicalTerms('Bo cycled across the mountains').map(termIndex));
    const found = await oldService.search({ userId: 'bo', query: 'mountains' });
    expect(found[0]?.content).toBe('Bo cycled across the mountains');
    await old.close();
  });
});
