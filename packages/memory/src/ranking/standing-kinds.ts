import { MEMORY_CATEGORIES, MEMORY_SOURCES, type MemoryCategory, type MemorySource } from '@nexus/protocol';
import type { Memory } from '../model/memory.ts';

/** Every category and source pair: a person's standing facts are read newest first per pair. */
export const STANDING_KINDS: ReadonlyArray<{ category: MemoryCategory; source: MemorySource }> =
  MEMORY_CATEGORIES.flatMap((category) => MEMORY_SOURCES.map((source) => ({ category, source })));

/** Newest first, equal times by id ascending: the order each kind is read in (and its index). */
export function newestFirst(left: Memory, right: Memory): number {
  return right.updatedAt - left.updatedAt || (left.id < right.id ? -1 : left.id > right.id ? 1 : 0);
}

/**
 * The `limit` best memories by `order`, taken from streams that are each already in `order`
 * (one per category and source, newest first). A k-way merge: it pulls one memory past each
 * stream's last pick, so it reads at most `limit + streams` memories whatever the person holds.
 */
export function mergeStandingKinds(
  streams: ReadonlyArray<Iterator<Memory>>,
  order: (left: Memory, right: Memory) => number,
  limit: number,
): Memory[] {
  const heads: Array<{ memory: Memory; stream: Iterator<Memory> }> = [];
  for (const stream of streams) {
    const next = stream.next();
    if (!next.done) heads.push({ memory: next.value, stream });
  }
  const picked: Memory[] = [];
  while (picked.length < limit && heads.length > 0) {
    let best = 0;
    for (let index = 1; index < heads.length; index++) {
      if (order(heads[index]!.memory, heads[best]!.memory) < 0) best = index;
    }
    const head = heads[best]!;
    picked.push(head.memory);
    const next = head.stream.next();
    if (next.done) heads.splice(best, 1);
    else head.memory = next.value;
  }
  return picked;
}
