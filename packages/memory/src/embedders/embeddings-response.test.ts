import { describe, expect, it } from 'vitest';
import { embeddingVectorsOf } from './embeddings-response.ts';

const expected = { texts: 2, dimensions: 3 };
/** An embeddings body with these `[index, embedding]` items. */
const body = (...items: [unknown, unknown][]) => ({
  data: items.map(([index, embedding]) => ({ index, embedding })),
});

describe('embeddingVectorsOf', () => {
  it('puts each vector where its index says, as float32', () => {
    const vectors = embeddingVectorsOf(
      {
        object: 'list',
        data: [
          { object: 'embedding', index: 1, embedding: [0.5, -1, 2] },
          { object: 'embedding', index: 0, embedding: [0.1, 0, 1e-3] },
        ],
        usage: { prompt_tokens: 4, total_tokens: 4 },
      },
      expected,
    );
    expect(Array.isArray(vectors)).toBe(true);
    const [first, second] = vectors as Float32Array[];
    expect(first).toBeInstanceOf(Float32Array);
    expect([...(first ?? [])]).toEqual([Math.fround(0.1), 0, Math.fround(1e-3)]);
    expect([...(second ?? [])]).toEqual([0.5, -1, 2]);
  });

  it('names a vector of the wrong length apart from other malformed bodies', () => {
    expect(embeddingVectorsOf(body([0, [1, 2]], [1, [1, 2, 3]]), expected)).toEqual({
      problem: 'dimensions',
      got: 2,
    });
  });

  it.each([
    ['no body', undefined],
    ['no data', { object: 'list' }],
    ['one vector for two texts', body([0, [1, 2, 3]])],
    ['an index twice', body([0, [1, 2, 3]], [0, [1, 2, 3]])],
    ['an index out of range', body([0, [1, 2, 3]], [2, [1, 2, 3]])],
    ['a fractional index', body([0, [1, 2, 3]], [0.5, [1, 2, 3]])],
    ['a string in a vector', body([0, [1, '2', 3]], [1, [1, 2, 3]])],
    ['a null item', { data: [null, { index: 1, embedding: [1, 2, 3] }] }],
    ['base64 vectors', body([0, 'AAAA'], [1, 'AAAA'])],
  ])('refuses %s', (_name, body) => {
    expect(embeddingVectorsOf(body, expected)).toEqual({ problem: 'malformed' });
  });
});
