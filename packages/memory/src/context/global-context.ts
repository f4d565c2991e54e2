import type { TokenCounter } from '@nexus/limits-kit';
import { GLOBAL_USER_ID, type Memory } from '../model/memory.ts';
import type { MemoryStore } from '../model/memory-store.ts';
import { CATEGORY_ORDER, memoryPrior } from '../ranking/memory-scoring.ts';
import { packContext } from './context-block.ts';

/** Global memories considered for the always-present part: the newest this many. */
const GLOBAL_CANDIDATES = 50;

/**
 * Most important first: the higher category and source prior (a stated preference before an
 * inferred event), then `CATEGORY_ORDER`, then newer, then id.
 */
export function compareImportance(left: Memory, right: Memory): number {
  return (
    memoryPrior(right.category, right.source) - memoryPrior(left.category, left.source) ||
    CATEGORY_ORDER.indexOf(left.category) - CATEGORY_ORDER.indexOf(right.category) ||
    right.updatedAt - left.updatedAt ||
    (left.id < right.id ? -1 : left.id > right.id ? 1 : 0)
  );
}

/**
 * The global memories every context carries whatever the message says (house rules, facts true
 * for everyone), most important first, as many as fit `tokenBudget` (their heading included).
 * Word matches among the rest still compete for the remaining budget like any memory.
 */
export async function alwaysPresentGlobal(options: {
  store: MemoryStore;
  counter: TokenCounter;
  now: number;
  tokenBudget: number;
  abortSignal?: AbortSignal;
}): Promise<Memory[]> {
  if (options.tokenBudget <= 0) return [];
  const newest = await options.store.list({
    userId: GLOBAL_USER_ID,
    limit: GLOBAL_CANDIDATES,
    offset: 0,
    abortSignal: options.abortSignal,
  });
  return packContext({
    candidates: newest.sort(compareImportance),
    tokenBudget: options.tokenBudget,
    counter: options.counter,
    now: options.now,
  }).used;
}
