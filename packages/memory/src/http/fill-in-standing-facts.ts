import type { TokenCounter } from '@nexus/limits-kit';
import { CONTEXT_HEADER, factLine, GLOBAL_CONTEXT_HEADER } from '../context/context-block.ts';
import type { Memory } from '../model/memory.ts';
import type { MemoryContext, MemoryContextOptions } from '../model/memory-api.ts';

/**
 * A memory service older than the `standing` request ignores it and answers without a `standing`
 * report. The client then reads the standing facts from that service's `GET /standing-facts` and
 * adds them to its block the way a current service does: the best `limit` it does not hold yet,
 * each that fits the standing budget, after the person's facts and ahead of the global section.
 * The block is memory's own format, so this stays inside the memory package.
 */
export function fillInStandingFacts(
  answer: MemoryContext,
  facts: readonly Memory[],
  options: {
    standing: NonNullable<MemoryContextOptions['standing']>;
    counter: TokenCounter;
    now: number;
    durationMs: number;
  },
): MemoryContext {
  const held = new Set(answer.memoryIds);
  const chosen = facts.filter((memory) => !held.has(memory.id) && memory.scope === 'user');
  const lines: string[] = [];
  const ids: string[] = [];
  let tokens = 0;
  for (const memory of chosen.slice(0, options.standing.limit)) {
    const line = `${factLine(memory, options.now)}\n`;
    const lineTokens = options.counter.count(line);
    if (tokens + lineTokens > options.standing.tokenBudget) continue;
    tokens += lineTokens;
    lines.push(line);
    ids.push(memory.id);
  }
  const standing = { status: 'ok' as const, candidates: facts.length, durationMs: options.durationMs };
  if (lines.length === 0) return { ...answer, standing };
  const block = answer.context;
  const globalAt = block.indexOf(GLOBAL_CONTEXT_HEADER);
  const personal = globalAt === -1 ? block : block.slice(0, globalAt);
  const global = globalAt === -1 ? '' : block.slice(globalAt);
  const personalSection = personal.trim()
    ? `${personal.trimEnd()}\n${lines.join('')}`
    : `${CONTEXT_HEADER}\n${lines.join('')}`;
  const context = global ? `${personalSection}\n${global}` : personalSection;
  return {
    ...answer,
    context,
    memoriesUsed: answer.memoriesUsed + ids.length,
    memoryIds: [...answer.memoryIds, ...ids],
    tokensUsed: options.counter.count(context),
    standing,
  };
}
