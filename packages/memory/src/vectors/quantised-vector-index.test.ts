import { describe, expect, it } from 'vitest';
import { seededRandom } from '../testing/seeded-random.ts';
import { Int8DotProducts } from './int8-dot-products.ts';
import { QuantisedVectorIndex } from './quantised-vector-index.ts';

const random = seededRandom(7);
const gaussian = () => Math.sqrt(-2 * Math.log(random() || 1e-12)) * Math.cos(2 * Math.PI * random());

function unit(values: number[]): Float32Array {
  const norm = Math.sqrt(values.reduce((sum, value) => sum + value * value, 0));
  return Float32Array.from(values, (value) => value / norm);
}

const dense = (dimensions: number) => unit(Array.from({ length: dimensions }, gaussian));

function exactTop(
  vectors: Float32Array[],
  query: Float32Array,
  k: number,
  allowed: (index: number) => boolean,
) {
  const scored = vectors.flatMap((vector, index) => {
    if (!allowed(index)) return [];
    let dot = 0;
    for (let dimension = 0; dimension < vector.length; dimension++) {
      dot += (vector[dimension] ?? 0) * (query[dimension] ?? 0);
    }
    return [{ index, dot }];
  });
  return scored.sort((left, right) => right.dot - left.dot).slice(0, k);
}

describe('Int8DotProducts (WebAssembly SIMD)', () => {
  it('computes the same integer dot products as a plain loop, also after growing', () => {
    const dimensions = 40; // not a multiple of 16: padded to a stride of 48
    const products = new Int8DotProducts(dimensions);
    products.reserve(10);
    const fill = (from: number, to: number) => {
      const codes = products.codes(to);
      for (let index = from * products.stride; index < to * products.stride; index++) {
        const inVector = index % products.stride;
        codes[index] = inVector < dimensions ? Math.floor(random() * 255) - 127 : 0;
      }
    };
    fill(0, 10);
    const before = products.codes(10).slice();
    products.reserve(1_000);
    expect(products.codes(10)).toEqual(before);
    fill(10, 1_000);
    const query = new Int16Array(products.stride);
    for (let index = 0; index < dimensions; index++) query[index] = Math.floor(random() * 65_535) - 32_767;
    const result = products.compute(query, 1_000);
    const codes = products.codes(1_000);
    for (let vector = 0; vector < 1_000; vector++) {
      let expected = 0;
      for (let index = 0; index < products.stride; index++) {
        expected += (query[index] ?? 0) * (codes[vector * products.stride + index] ?? 0);
      }
      expect(result[vector]).toBe(expected);
    }
  });
});

describe('QuantisedVectorIndex', () => {
  it('names every vector of the exact top k, and far fewer than all of them', () => {
    const dimensions = 64;
    const vectors = Array.from({ length: 3_000 }, () => dense(dimensions));
    // Near-duplicates of a few vectors, so the cut often falls among almost equal scores.
    for (let copy = 0; copy < 300; copy++) {
      const base = vectors[copy % 30] ?? dense(dimensions);
      vectors.push(unit(Array.from(base, (value) => value + gaussian() * 1e-4)));
    }
    const index = new QuantisedVectorIndex(dimensions);
    for (const [rowid, vector] of vectors.entries()) {
      index.upsert(rowid, rowid % 3 === 0 ? 'global' : 'user', vector);
    }
    for (let query = 0; query < 40; query++) {
      const target = query % 2 === 0 ? dense(dimensions) : (vectors[query] ?? dense(dimensions));
      for (const scopes of [undefined, ['user']] as const) {
        const candidates = new Set(index.candidates(target, 60, scopes));
        const allowed = (rowid: number) => scopes === undefined || rowid % 3 !== 0;
        for (const { index: rowid } of exactTop(vectors, target, 60, allowed)) {
          expect(candidates.has(rowid)).toBe(true);
        }
        expect([...candidates].every(allowed)).toBe(true);
        expect(candidates.size).toBeLessThan(vectors.length / 4);
      }
    }
  });

  it('forgets removed vectors and follows replaced ones', () => {
    const index = new QuantisedVectorIndex(16);
    const first = dense(16);
    const second = dense(16);
    index.upsert(1, 'user', first);
    index.upsert(2, 'user', second);
    for (let rowid = 3; rowid < 200; rowid++) index.upsert(rowid, 'user', dense(16));
    expect(index.candidates(first, 1)).toContain(1);
    index.remove(1);
    expect(index.candidates(first, 5)).not.toContain(1);
    expect(index.size).toBe(198);
    index.upsert(2, 'user', first);
    expect(index.candidates(first, 1)).toContain(2);
    index.upsert(1, 'user', first);
    expect(index.size).toBe(199);
  });
});
