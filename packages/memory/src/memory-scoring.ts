import type { MemoryCategory, MemorySource } from './memory.ts';

export const DAY_MS = 86_400_000;

export interface ScoringOptions {
  relevanceWeight?: number;
  recencyWeight?: number;
  halfLifeDays?: number;
}

/** `relevanceWeight·relevance + recencyWeight·0.5^(age / halfLife)`; defaults 0.7, 0.3, 30 days. */
export function memoryScore(relevance: number, ageMs: number, options: ScoringOptions = {}): number {
  const halfLifeMs = (options.halfLifeDays ?? 30) * DAY_MS;
  const recency = 0.5 ** (Math.max(0, ageMs) / halfLifeMs);
  return (options.relevanceWeight ?? 0.7) * relevance + (options.recencyWeight ?? 0.3) * recency;
}

const SOURCE_RANK: Record<MemorySource, number> = { user_explicit: 0, inferred: 1 };
const CATEGORY_RANK: Record<MemoryCategory, number> = { preference: 0, fact: 1, event: 2, pattern: 3 };
const EQUAL_SCORE = 1e-9;

export interface Rankable {
  id: string;
  score: number;
  source: MemorySource;
  category: MemoryCategory;
  updatedAt: number;
}

/**
 * Best first. Scores within 1e-9 are ties, broken by: what the person said before what was
 * inferred, then preference > fact > event > pattern, then newer first, then id (so the order
 * is total and the same on every store).
 */
export function compareRanked(left: Rankable, right: Rankable): number {
  if (Math.abs(left.score - right.score) > EQUAL_SCORE) return right.score - left.score;
  return (
    SOURCE_RANK[left.source] - SOURCE_RANK[right.source] ||
    CATEGORY_RANK[left.category] - CATEGORY_RANK[right.category] ||
    right.updatedAt - left.updatedAt ||
    (left.id < right.id ? -1 : left.id > right.id ? 1 : 0)
  );
}
