import type { MemoryCategoryName, MemoryRecord, MemorySourceName } from './memory-port.ts';

/** The header memory's context block starts with; used when core builds the block itself. */
export const KNOWN_FACTS_HEADER = '## Known Facts (from memory)';
/** Memory's heading for global facts; standing facts go in before it, with the person's own. */
export const GLOBAL_FACTS_HEADER = '## Known Facts for everyone (global)';
export const SESSION_SUMMARY_HEADER = '## Earlier in this conversation';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Same wording as the memory service's block, so lines core adds read like the others. */
export function factAge(ageMs: number): string {
  const days = Math.floor(Math.max(0, ageMs) / DAY_MS);
  if (days === 0) return 'today';
  if (days === 1) return 'yesterday';
  if (days < 7) return `${days} days ago`;
  const [count, unit] =
    days < 30
      ? [Math.floor(days / 7), 'week']
      : days < 365
        ? [Math.floor(days / 30), 'month']
        : [Math.floor(days / 365), 'year'];
  return `${count} ${unit}${count === 1 ? '' : 's'} ago`;
}

export function factLine(
  memory: Pick<MemoryRecord, 'content' | 'source' | 'updatedAt' | 'category'>,
  now: number,
): string {
  const content = memory.content.replace(/\s+/gu, ' ').trim();
  const source = memory.source === 'user_explicit' ? 'you told me' : 'inferred';
  return `- ${content} (${memory.category}, ${factAge(now - memory.updatedAt)}, ${source})`;
}

/**
 * The memory service's category order and prior (`packages/memory/src/ranking/memory-scoring.ts`), repeated
 * here because core does not depend on the memory package; tests/memory/memory-ranking.test.ts
 * ("core and memory agree on the category order and the prior") fails if the two drift apart.
 */
export const CATEGORY_ORDER: readonly MemoryCategoryName[] = ['preference', 'fact', 'pattern', 'event'];
export const STANDING_PRIOR = {
  category: { preference: 0.04, fact: 0.03, pattern: 0.01, event: 0 } satisfies Record<
    MemoryCategoryName,
    number
  >,
  source: { user_explicit: 0.04, inferred: 0 } satisfies Record<MemorySourceName, number>,
} as const;

/**
 * A standing fact's score: memory's score with no query (relevance 0), so recency (0.3, halving every
 * 30 days) plus the category and source prior. A preference stated last week outranks an inferred
 * event from today; a month-old fact gives way to a fresh one.
 */
export function standingScore(memory: Pick<MemoryRecord, 'category' | 'source' | 'updatedAt'>, now: number) {
  const recency = 0.5 ** (Math.max(0, now - memory.updatedAt) / (30 * DAY_MS));
  return 0.3 * recency + STANDING_PRIOR.category[memory.category] + STANDING_PRIOR.source[memory.source];
}

/** Best standing fact first; ties by `CATEGORY_ORDER`, then newer, then id. */
export function standingOrder(now: number) {
  return (left: MemoryRecord, right: MemoryRecord): number =>
    standingScore(right, now) - standingScore(left, now) ||
    CATEGORY_ORDER.indexOf(left.category) - CATEGORY_ORDER.indexOf(right.category) ||
    right.updatedAt - left.updatedAt ||
    (left.id < right.id ? -1 : 1);
}
