import { describe, expect, it } from 'vitest';
import { embeddingVectorsOf } from './embeddings-response.ts';

const expected = { texts: 2, dimensions: 3 };

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
    expect(
      embeddingVectorsOf(
        {
          data: [
            { index: 0, embedding: [1, 2] },
            { index: 1, embedding: [1, 2, 3] },
          ],
        },
        expected,
      ),
    ).toEqual({ problem: 'dimensions', got: 2 });
  });

  it.each([
    ['no body', undefined],
    ['no data', { object: 'list' }],
    ['one vector for two texts', { data: [{ index: 0, embedding: [1, 2, 3] }] }],
    [
      'an index twice',
      {
        data: [
          { index: 0, embedding: [1, 2, 3] },
          { index: 0, embedding: [1, 2, 3] },
        ],
      },
    ],
    [
      'an index out of range',
      {
        data: [
          { index: 0, embedding: [1, 2, 3] },
          { index: 2, embedding: [1, 2, 3] },
        ],
      },
    ],
    [
      'a fractional index',
      {
        data: [
          { index: 0, embedding: [1, 2, 3] },
          { index: 0.5, embedding: [1, 2, 3] },
        ],
      },
    ],
    [
      'a string in a vector',
      {
        data: [
          { index: 0, embedding: [1, '2', 3] },
          { index: 1, embedding: [1, 2, 3] },
        ],
      },
    ],
    ['a null item', { data: [null, { index: 1, embedding: [1, 2, 3] }] }],
    [
      'base64 vectors',
      {
        data: [
          { index: 0, embedding: 'AAAA' },
          { index: 1, embedding: 'AAAA' },
        ],
      },
    ],
  ])('refuses %s', (_name, body) => {
    expect(embeddingVectorsOf(body, expected)).toEqual({ problem: 'malformed' });
  });
});
