import { seededRandom } from '@nexus/testkit';
import { describe, expect, it } from 'vitest';
import { indexTokens, PersonLexicalIndex } from './person-lexical-index.ts';

/** BM25 the slow, obvious way (every memory, every term), to check the index against. */
function referenceRanking(
  memories: ReadonlyArray<{ rowid: number; scope: string; content: string }>,
  parts: ReadonlyArray<{ terms: string[]; weight: number }>,
  limit: number,
  scopes?: readonly string[],
) {
  const documents = memories.map((memory) => ({ ...memory, tokens: indexTokens(memory.content) }));
  const averageLength =
    documents.reduce((sum, document) => sum + document.tokens.length, 0) / documents.length;
  const weights = new Map<string, number>();
  for (const part of parts) {
    for (const term of part.terms.flatMap(indexTokens)) {
      weights.set(term, Math.max(weights.get(term) ?? 0, part.weight));
    }
  }
  const scored = documents
    .filter((document) => !scopes || scopes.includes(document.scope))
    .map((document) => {
      let score = 0;
      for (const [term, weight] of weights) {
        const count = document.tokens.filter((token) => token === term).length;
        if (count === 0) continue;
        const frequency = documents.filter((other) => other.tokens.includes(term)).length;
        const idf = Math.max(1e-6, Math.log((documents.length - frequency + 0.5) / (frequency + 0.5)));
        score +=
          (weight * idf * count * 1.9) /
          (count + 0.9 * (0.6 + (0.4 * document.tokens.length) / averageLength));
      }
      return { rowid: document.rowid, score };
    });
  return scored
    .filter((entry) => entry.score > 0)
    .sort((left, right) => right.score - left.score || left.rowid - right.rowid)
    .slice(0, limit);
}

describe('PersonLexicalIndex', () => {
  it('tokenises as FTS5 porter unicode61 remove_diacritics does: folded, lower-cased, stemmed', () => {
    expect(indexTokens('Café RUNNING, cafés! naïve 2024')).toEqual(['cafe', 'run', 'cafe', 'naiv', '2024']);
    expect(indexTokens('東京 に 住んでいる')).toEqual(['東京', 'に', '住んでいる']);
  });

  it('ranks exactly as plain BM25 over the live memories (random data, adds, edits and removals)', () => {
    const random = seededRandom(23);
    const words =
      'tea coffee jazz trains garden sister lisbon kyoto the and my running runs ran hiking'.split(' ');
    const pick = () => words[Math.floor(random() * words.length)] as string;
    const scopes = ['user', 'global', 'session'];
    for (let round = 0; round < 20; round += 1) {
      const index = new PersonLexicalIndex();
      const live = new Map<number, { rowid: number; scope: string; content: string }>();
      for (let step = 0; step < 120; step += 1) {
        const rowid = 1 + Math.floor(random() * 80);
        if (random() < 0.2) {
          index.remove(rowid);
          live.delete(rowid);
        } else {
          const memory = {
            rowid,
            scope: scopes[Math.floor(random() * 3)] as string,
            content: Array.from({ length: 1 + Math.floor(random() * 9) }, pick).join(' '),
          };
          index.upsert(rowid, memory.scope, memory.content);
          live.set(rowid, memory);
        }
      }
      const parts = [
        { terms: [pick(), pick()], weight: 1 },
        { terms: [pick()], weight: 0.1 },
        { terms: [pick()], weight: 0.4 },
      ];
      const scopeFilter = round % 2 === 0 ? undefined : ['user'];
      const expected = referenceRanking([...live.values()], parts, 10, scopeFilter);
      const actual = index.rank(parts, 10, scopeFilter);
      expect(actual.map((entry) => entry.rowid)).toEqual(expected.map((entry) => entry.rowid));
      actual.forEach((entry, position) => {
        expect(entry.score).toBeCloseTo(expected[position]?.score ?? Number.NaN, 9);
      });
      expect(index.size).toBe(live.size);
    }
  });

  it('prefers the rarer word and the shorter memory, and breaks ties by rowid', () => {
    const index = new PersonLexicalIndex();
    index.upsert(1, 'user', 'tea in the morning');
    index.upsert(2, 'user', 'tea with my sister');
    index.upsert(3, 'user', 'tea');
    index.upsert(4, 'user', 'tea');
    index.upsert(5, 'user', 'my sister lives in Lisbon and likes long walks by the river');
    const ranking = index.rank([{ terms: ['tea', 'sister'], weight: 1 }], 10);
    // "sister" is in 2 of 5 memories, "tea" in 4: the memory with both first, then the short
    // sister memory beats nothing with tea alone only because sister is rarer.
    expect(ranking.map((entry) => entry.rowid)).toEqual([2, 5, 3, 4, 1]);
    expect(index.rank([{ terms: ['tea'], weight: 1 }], 2).map((entry) => entry.rowid)).toEqual([3, 4]);
  });

  it('forgets a replaced wording and a removed memory, and counts only live memories', () => {
    const index = new PersonLexicalIndex();
    index.upsert(1, 'user', 'lives in Porto');
    index.upsert(2, 'user', 'works in Porto');
    index.upsert(1, 'user', 'lives in Lisbon');
    expect(index.rank([{ terms: ['porto'], weight: 1 }], 10).map((entry) => entry.rowid)).toEqual([2]);
    expect(index.rank([{ terms: ['lisbon'], weight: 1 }], 10).map((entry) => entry.rowid)).toEqual([1]);
    index.remove(2);
    expect(index.rank([{ terms: ['porto'], weight: 1 }], 10)).toEqual([]);
    expect(index.size).toBe(1);
    expect(index.deadShare).toBeCloseTo(2 / 3);
  });
});
