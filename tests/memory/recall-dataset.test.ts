import { describe, expect, it } from 'vitest';
import { createPlainBm25 } from '../../packages/memory/bench/plain-bm25.ts';
import { generateRecallDataset, recallAtK } from '../../packages/memory/bench/recall-dataset.ts';

describe('pnpm bench:recall data set and scoring', () => {
  it('is the same for the same seed, different for another, and every evidence key is a fact of the asker', () => {
    const dataset = generateRecallDataset();
    expect(generateRecallDataset()).toEqual(dataset);
    expect(generateRecallDataset({ seed: 15 })).not.toEqual(dataset);
    const factsByKey = new Map(dataset.facts.map((fact) => [fact.key, fact]));
    expect(factsByKey.size).toBe(dataset.facts.length);
    expect(new Set(dataset.facts.map((fact) => fact.userId)).size).toBe(90);
    expect(dataset.questions.length).toBeGreaterThanOrEqual(1_000);
    expect(new Set(dataset.facts.map((fact) => fact.day)).size).toBe(12);
    for (const question of dataset.questions) {
      expect(question.evidence.length).toBeGreaterThan(0);
      for (const key of question.evidence) expect(factsByKey.get(key)?.userId).toBe(question.userId);
      expect(question.turns.length).toBeGreaterThan(0);
      // A paraphrase, never the stored sentence itself.
      for (const key of question.evidence)
        expect(question.query.toLowerCase()).not.toContain(factsByKey.get(key)?.content.toLowerCase());
    }
    // Updated facts: the evidence is the later statement, and an earlier one exists.
    const updated = dataset.questions.filter((question) => question.kind === 'home');
    expect(updated.length).toBe(90);
    for (const question of updated) {
      const evidence = factsByKey.get(question.evidence[0] ?? '');
      const older = dataset.facts.filter(
        (fact) =>
          fact.userId === question.userId &&
          fact.day < (evidence?.day ?? 0) &&
          /^(Lives in|Rents)/u.test(fact.content),
      );
      expect(older.length).toBe(1);
    }
  });

  it('scores recall@k as the share of evidence in the first k, averaged over questions', () => {
    const rankings = [
      { evidence: ['a'], ranked: ['x', 'a'] },
      { evidence: ['b', 'c'], ranked: ['b', 'y', 'z', 'c'] },
    ];
    expect(recallAtK(rankings, 1)).toBe(0.25);
    expect(recallAtK(rankings, 2)).toBe(0.75);
    expect(recallAtK(rankings, 4)).toBe(1);
    expect(recallAtK([], 5)).toBe(0);
  });

  it('plain BM25 prefers rarer terms and shorter documents, and returns only matches', () => {
    const bm25 = createPlainBm25([
      { id: 'common', text: 'likes tea and tea and more tea with friends every day' },
      { id: 'rare', text: 'allergic to sesame' },
      { id: 'short', text: 'likes tea' },
      { id: 'none', text: 'plays chess' },
    ]);
    expect(bm25.search('sesame tea', 10)[0]).toBe('rare');
    expect(bm25.search('tea', 10)).toEqual(['short', 'common']);
    expect(bm25.search('tea', 1)).toEqual(['short']);
  });
});
