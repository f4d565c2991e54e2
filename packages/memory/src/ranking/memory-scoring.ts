import { MEMORY_CATEGORIES, MEMORY_SOURCES, type MemoryCategory, type MemorySource } from '@nexus/protocol';

export const DAY_MS = 86_400_000;

export interface ScoringOptions {
  relevanceWeight?: number;
  recencyWeight?: number;
  halfLifeDays?: number;
  /** Multiplies the category and source prior (`MEMORY_PRIOR`); 0 turns it off. Default 1. */
  priorWeight?: number;
}

/**
 * Standing categories first: what the person prefers, then facts about them, then inferred habits,
 * then dated events; the order of protocol's one category list.
 */
export const CATEGORY_ORDER: readonly MemoryCategory[] = MEMORY_CATEGORIES;

/**
 * A small prior added to the score: at most 0.08, against relevance weighted 0.7, so it decides only
 * between memories of near-equal relevance. A preference the person stated (0.04 + 0.04) beats an
 * inferred pattern (0.01) unless the pattern's relevance is higher by 0.1 or more (0.07 / 0.7).
 */
export const MEMORY_PRIOR = {
  category: { preference: 0.04, fact: 0.03, pattern: 0.01, event: 0 } satisfies Record<
    MemoryCategory,
    number
  >,
  source: { user_explicit: 0.04, inferred: 0 } satisfies Record<MemorySource, number>,
} as const;

export function memoryPrior(category: MemoryCategory, source: MemorySource): number {
  return MEMORY_PRIOR.category[category] + MEMORY_PRIOR.source[source];
}

/**
 * `relevanceWeight·relevance + recencyWeight·0.5^(age / halfLife) + priorWeight·prior`; defaults
 * 0.7, 0.3, 30 days, 1. Without `kind` the prior is 0.
 */
export function memoryScore(
  relevance: number,
  ageMs: number,
  options: ScoringOptions = {},
  kind?: { category: MemoryCategory; source: MemorySource },
): number {
  const halfLifeMs = (options.halfLifeDays ?? 30) * DAY_MS;
  const recency = 0.5 ** (Math.max(0, ageMs) / halfLifeMs);
  const prior = kind ? (options.priorWeight ?? 1) * memoryPrior(kind.category, kind.source) : 0;
  return (options.relevanceWeight ?? 0.7) * relevance + (options.recencyWeight ?? 0.3) * recency + prior;
}

/** What the person said before what was inferred: protocol's source list is in that order. */
const SOURCE_RANK = Object.fromEntries(MEMORY_SOURCES.map((source, index) => [source, index])) as Record<
  MemorySource,
  number
>;
const CATEGORY_RANK = Object.fromEntries(
  CATEGORY_ORDER.map((category, index) => [category, index]),
) as Record<MemoryCategory, number>;
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
 * inferred, then `CATEGORY_ORDER`, then newer first, then id (so the order
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
