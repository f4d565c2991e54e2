import type { MemoryCategoryName, MemoryRecord } from './memory-port.ts';

/** The header memory's context block starts with; used when core builds the block itself. */
export const KNOWN_FACTS_HEADER = '## Known Facts (from memory)';
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
  memory: Pick<MemoryRecord, 'content' | 'source' | 'updatedAt'>,
  now: number,
): string {
  const content = memory.content.replace(/\s+/gu, ' ').trim();
  const source = memory.source === 'user_explicit' ? 'you told me' : 'inferred';
  return `- ${content} (${factAge(now - memory.updatedAt)}, ${source})`;
}

const CATEGORY_RANK: Record<MemoryCategoryName, number> = { preference: 0, fact: 1, pattern: 2, event: 3 };

/** Standing facts first: preferences, then facts, patterns, events; newest first within each. */
export function profileOrder(left: MemoryRecord, right: MemoryRecord): number {
  return (
    CATEGORY_RANK[left.category] - CATEGORY_RANK[right.category] ||
    right.updatedAt - left.updatedAt ||
    (left.id < right.id ? -1 : 1)
  );
}
