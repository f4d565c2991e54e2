import type { TokenCounter } from '@nexus/limits-kit';
import { describeMemoryAge } from '@nexus/protocol';
import { GLOBAL_USER_ID, type Memory } from '../model/memory.ts';

export const CONTEXT_HEADER = '## Known Facts (from memory)';
/** Global memories (true for everyone, written by the operator) come under their own heading. */
export const GLOBAL_CONTEXT_HEADER = '## Known Facts for everyone (global)';

/**
 * One fact line with its category, age and source; content is folded onto one line so a memory can
 * never add headings or lines: `- Prefers short answers (preference, 3 days ago, you told me)`.
 */
export function factLine(memory: Memory, now: number): string {
  const content = memory.content.replace(/\s+/gu, ' ').trim();
  const source = memory.source === 'user_explicit' ? 'you told me' : 'inferred';
  return `- ${content} (${memory.category}, ${describeMemoryAge(now - memory.updatedAt)}, ${source})`;
}

function isGlobal(memory: Memory): boolean {
  return memory.userId === GLOBAL_USER_ID || memory.scope === 'global';
}

/** The block: the person's (and session's) facts, then the global ones under their own heading. */
function blockOf(used: readonly Memory[], lines: readonly string[]): string {
  const personal = lines.filter((_line, index) => !isGlobal(used[index]!));
  const global = lines.filter((_line, index) => isGlobal(used[index]!));
  const sections: string[] = [];
  if (personal.length > 0) sections.push(`${CONTEXT_HEADER}\n${personal.join('')}`);
  if (global.length > 0) sections.push(`${GLOBAL_CONTEXT_HEADER}\n${global.join('')}`);
  return sections.join('\n');
}

export interface PackedContext {
  context: string;
  used: Memory[];
  /** One line per memory in `used`, each ending in a newline. */
  lines: string[];
  tokensUsed: number;
  truncated: boolean;
}

/**
 * Greedy packing: candidates in order (best first); each fact that still fits is taken, one
 * that does not is skipped and later, shorter ones are still tried. The finished block is
 * counted once more as a whole and trimmed if BPE merges across lines ever made it larger
 * than the sum of its lines, so the budget holds by the tokenizer's own count.
 */
export function packContext(options: {
  candidates: readonly Memory[];
  tokenBudget: number;
  counter: TokenCounter;
  now: number;
}): PackedContext {
  const { candidates, tokenBudget, counter, now } = options;
  if (candidates.length === 0) return { context: '', used: [], lines: [], tokensUsed: 0, truncated: false };
  const headerTokens = {
    personal: counter.count(`${CONTEXT_HEADER}\n`),
    global: counter.count(`\n${GLOBAL_CONTEXT_HEADER}\n`),
  };
  let tokens = 0;
  const opened = { personal: false, global: false };
  const used: Memory[] = [];
  const lines: string[] = [];
  for (const memory of candidates) {
    const line = `${factLine(memory, now)}\n`;
    const section = isGlobal(memory) ? 'global' : 'personal';
    // A section's heading is paid for by its first line.
    const lineTokens = counter.count(line) + (opened[section] ? 0 : headerTokens[section]);
    if (tokens + lineTokens > tokenBudget) continue;
    tokens += lineTokens;
    opened[section] = true;
    used.push(memory);
    lines.push(line);
  }
  let context = blockOf(used, lines);
  let tokensUsed = context ? counter.count(context) : 0;
  while (tokensUsed > tokenBudget && lines.length > 0) {
    lines.pop();
    used.pop();
    context = blockOf(used, lines);
    tokensUsed = context ? counter.count(context) : 0;
  }
  return { context, used, lines, tokensUsed, truncated: used.length < candidates.length };
}

/**
 * The person's standing facts added to a packed block: the best `limit` of `candidates` (already
 * in standing order) that the block does not hold yet, each that still fits `tokenBudget` (their
 * own budget, on top of the block's). They are the person's, so they go with the person's facts,
 * ahead of the global section.
 */
export function withStandingFacts(
  packed: PackedContext,
  options: {
    candidates: readonly Memory[];
    limit: number;
    tokenBudget: number;
    counter: TokenCounter;
    now: number;
  },
): PackedContext & { standingUsed: number } {
  const held = new Set(packed.used.map((memory) => memory.id));
  const chosen = options.candidates
    .filter((memory) => !held.has(memory.id) && memory.scope === 'user' && !isGlobal(memory))
    .slice(0, options.limit);
  let tokens = 0;
  const used = [...packed.used];
  const lines = [...packed.lines];
  for (const memory of chosen) {
    const line = `${factLine(memory, options.now)}\n`;
    const lineTokens = options.counter.count(line);
    if (tokens + lineTokens > options.tokenBudget) continue;
    tokens += lineTokens;
    used.push(memory);
    lines.push(line);
  }
  const standingUsed = used.length - packed.used.length;
  if (standingUsed === 0) return { ...packed, standingUsed };
  const context = blockOf(used, lines);
  return { ...packed, context, used, lines, tokensUsed: options.counter.count(context), standingUsed };
}
