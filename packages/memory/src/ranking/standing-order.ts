import type { Memory } from '../model/memory.ts';
import { CATEGORY_ORDER, memoryScore, type ScoringOptions } from './memory-scoring.ts';

type Standing = Pick<Memory, 'id' | 'category' | 'source' | 'updatedAt'>;

const CATEGORY_RANK = new Map(CATEGORY_ORDER.map((category, index) => [category, index]));

/**
 * Standing facts, best first: the score with no query (recency plus the category and source
 * prior), ties by `CATEGORY_ORDER`, then newer, then id. Within one category and source
 * a newer memory always comes first, which is what lets a store read each kind newest first.
 */
export function compareStanding(now: number, options: ScoringOptions = {}) {
  const score = (memory: Standing) => memoryScore(0, now - memory.updatedAt, options, memory);
  return (left: Standing, right: Standing): number =>
    score(right) - score(left) ||
    (CATEGORY_RANK.get(left.category) ?? 0) - (CATEGORY_RANK.get(right.category) ?? 0) ||
    right.updatedAt - left.updatedAt ||
    (left.id < right.id ? -1 : 1);
}
