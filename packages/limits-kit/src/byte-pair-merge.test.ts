import { describe, expect, it } from 'vitest';
import { countBytePairParts, type PairRank } from './byte-pair-merge.ts';
import { seededRandom } from './testing/o200k-corpus.ts';

/** A rank function over a small alphabet: the tokens are the keys, their ranks the values. */
function ranksOf(tokens: Record<string, number>): PairRank {
  return (bytes, start, end) => tokens[String.fromCharCode(...bytes.subarray(start, end))] ?? -1;
}

/** The merge written as plainly as possible (tiktoken's loop, arrays and splice), to compare with. */
function plainMergeParts(bytes: Uint8Array, pairRank: PairRank): string[] {
  const starts = Array.from({ length: bytes.length + 1 }, (_, index) => index);
  const rankAt = (part: number) => {
    const rank =
      part + 2 < starts.length ? pairRank(bytes, starts[part] as number, starts[part + 2] as number) : -1;
    return rank < 0 ? Number.POSITIVE_INFINITY : rank;
  };
  const ranks = starts.map((_, part) => rankAt(part));
  for (;;) {
    const lowest = Math.min(...ranks);
    if (lowest === Number.POSITIVE_INFINITY) break;
    const best = ranks.indexOf(lowest);
    starts.splice(best + 1, 1);
    ranks.splice(best + 1, 1);
    ranks[best] = rankAt(best);
    if (best > 0) ranks[best - 1] = rankAt(best - 1);
  }
  return starts
    .slice(1)
    .map((end, index) => Buffer.from(bytes.subarray(starts[index], end)).toString('latin1'));
}

const latin1 = (text: string) => new Uint8Array(Buffer.from(text, 'latin1'));

describe('countBytePairParts', () => {
  it('merges the lowest-ranked pair first', () => {
    // "bc" outranks "ab", so "abc" becomes a + bc, and "abcd" a + bcd.
    const pairRank = ranksOf({ bc: 1, ab: 2, bcd: 3 });
    expect(plainMergeParts(latin1('abc'), pairRank)).toEqual(['a', 'bc']);
    expect(countBytePairParts(latin1('abc'), 3, pairRank)).toBe(2);
    expect(plainMergeParts(latin1('abcd'), pairRank)).toEqual(['a', 'bcd']);
    expect(countBytePairParts(latin1('abcd'), 4, pairRank)).toBe(2);
  });

  it('merges the leftmost of equally ranked pairs first, which changes the count', () => {
    // "aaa": leftmost first gives aa + a, then "aaa" is no pair: 2 parts; "aaaa" gives aa + aa → aaaa.
    const pairRank = ranksOf({ aa: 1, aaaa: 2, aaa: 3 });
    expect(plainMergeParts(latin1('aaaaa'), pairRank)).toEqual(['aaaa', 'a']);
    for (const length of [3, 5, 70, 71, 200]) {
      const bytes = latin1('a'.repeat(length));
      expect(countBytePairParts(bytes, length, pairRank)).toBe(plainMergeParts(bytes, pairRank).length);
    }
  });

  it('counts an empty or one-byte piece as itself', () => {
    const pairRank = ranksOf({});
    expect(countBytePairParts(new Uint8Array(0), 0, pairRank)).toBe(0);
    expect(countBytePairParts(latin1('z'), 1, pairRank)).toBe(1);
    expect(countBytePairParts(latin1('zz'), 2, pairRank)).toBe(2);
  });

  it('gives the plain merge’s count for 2,000 random pieces of 2–600 bytes, scanning and with the heap', () => {
    const random = seededRandom(42);
    // Every string of 2–4 letters over "abcd" is a token with a random rank, ties impossible.
    const tokens: Record<string, number> = {};
    let words = ['a', 'b', 'c', 'd'];
    for (let size = 2; size <= 4; size += 1) {
      words = words.flatMap((word) => ['a', 'b', 'c', 'd'].map((letter) => word + letter));
      for (const word of words) tokens[word] = Math.floor(random() * 1_000_000);
    }
    const pairRank = ranksOf(tokens);
    const mismatches: string[] = [];
    for (let index = 0; index < 2_000; index += 1) {
      const length = 2 + Math.floor(random() ** 2 * 600);
      let text = '';
      for (let at = 0; at < length; at += 1) text += 'abcd'[Math.floor(random() * (random() < 0.3 ? 1 : 4))];
      const bytes = latin1(text);
      const expected = plainMergeParts(bytes, pairRank).length;
      if (countBytePairParts(bytes, length, pairRank) !== expected) mismatches.push(text);
    }
    expect(mismatches).toEqual([]);
  });
});
