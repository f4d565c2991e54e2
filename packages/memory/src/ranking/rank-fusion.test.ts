import { describe, expect, it } from 'vitest';
import { compareRanked, DAY_MS, memoryScore } from './memory-scoring.ts';
import { fuseRankings, RRF_K } from './rank-fusion.ts';

describe('fuseRankings', () => {
  it('gives 1 to the first of every channel and shares positions between equal scores', () => {
    const fused = fuseRankings([
      [
        { id: 'a', score: 9 },
        { id: 'b', score: 5 },
        { id: 'c', score: 5 },
        { id: 'd', score: 1 },
      ],
      [{ id: 'a', score: 0.9 }],
    ]);
    expect(fused.get('a')).toBe(1);
    expect(fused.get('b')).toBe(fused.get('c'));
    expect(fused.get('b')).toBeCloseTo(1 / (RRF_K + 1) / (2 / RRF_K), 12);
    expect(fused.get('d')).toBeCloseTo(1 / (RRF_K + 3) / (2 / RRF_K), 12);
  });

  it('gives one channel alone the root of its scores relative to the first, so score gaps count', () => {
    const fused = fuseRankings([
      [
        { id: 'a', score: 8 },
        { id: 'b', score: 6 },
        { id: 'c', score: 6 },
        { id: 'd', score: 0.8 },
      ],
    ]);
    expect([...fused]).toEqual([
      ['a', 1],
      ['b', Math.sqrt(0.75)],
      ['c', Math.sqrt(0.75)],
      ['d', Math.sqrt(0.1)],
    ]);
  });

  it('counts an empty channel, so a match in one channel of two is worth at most 0.5', () => {
    expect(fuseRankings([[{ id: 'a', score: 1 }], []]).get('a')).toBe(0.5);
  });
});

describe('memoryScore and compareRanked', () => {
  it('mixes relevance and a 30-day half-life recency with 0.7 / 0.3 by default', () => {
    expect(memoryScore(1, 0)).toBeCloseTo(1, 12);
    expect(memoryScore(0.5, 30 * DAY_MS)).toBeCloseTo(0.35 + 0.15, 12);
    expect(memoryScore(0, 60 * DAY_MS)).toBeCloseTo(0.075, 12);
    expect(memoryScore(1, 7 * DAY_MS, { relevanceWeight: 1, recencyWeight: 0, halfLifeDays: 7 })).toBe(1);
    expect(memoryScore(0, 7 * DAY_MS, { relevanceWeight: 0, recencyWeight: 1, halfLifeDays: 7 })).toBeCloseTo(
      0.5,
      12,
    );
  });

  it('breaks ties: stated before inferred, then preference > fact > pattern > event, then newer, then id', () => {
    const base = { score: 0.5, updatedAt: 1 };
    const items = [
      { ...base, id: 'p', source: 'inferred', category: 'pattern' },
      { ...base, id: 'f', source: 'inferred', category: 'fact' },
      { ...base, id: 'e', source: 'user_explicit', category: 'event' },
      { ...base, id: 's', source: 'user_explicit', category: 'preference' },
      { ...base, id: 'n', source: 'user_explicit', category: 'preference', updatedAt: 2 },
      { ...base, id: 'top', score: 0.6, source: 'inferred', category: 'pattern' },
    ] as const;
    expect([...items].sort(compareRanked).map((item) => item.id)).toEqual(['top', 'n', 's', 'e', 'f', 'p']);
  });

  it('adds a small category and source prior: it decides near-equal relevance, not clear differences', () => {
    const stated = { category: 'preference', source: 'user_explicit' } as const;
    const inferred = { category: 'pattern', source: 'inferred' } as const;
    expect(memoryScore(0.5, 0, {}, stated) - memoryScore(0.5, 0)).toBeCloseTo(0.08, 12);
    expect(memoryScore(0.5, 0, {}, inferred) - memoryScore(0.5, 0)).toBeCloseTo(0.01, 12);
    // A stated preference beats an inferred pattern that is slightly more relevant…
    expect(memoryScore(0.8, 0, {}, stated)).toBeGreaterThan(memoryScore(0.89, 0, {}, inferred));
    // …but not one that is clearly more relevant.
    expect(memoryScore(0.7, 0, {}, stated)).toBeLessThan(memoryScore(0.81, 0, {}, inferred));
    expect(memoryScore(0.5, 0, { priorWeight: 0 }, stated)).toBeCloseTo(memoryScore(0.5, 0), 12);
  });
});
