import { stemmer } from 'stemmer';
import { ENGLISH_STOP_WORDS } from '../lexical/english-stop-words.ts';
import type { Memory } from '../model/memory.ts';
import type { MemoryStore } from '../model/memory-store.ts';

/**
 * Token-set similarity at or above which a new memory restates an existing one (with no embedder):
 * "Lives in Porto" and "Is living in Porto" (1.0) are one memory; "Works as a nurse" and "Sister
 * works as a nurse" (0.67), "Lives in Porto" and "Lives in Lisbon" (0.33) stay two.
 */
export const LEXICAL_DUPLICATE_THRESHOLD = 0.8;

const STOP_WORDS = new Set<string>(ENGLISH_STOP_WORDS);
const WORD_PATTERN = /[\p{L}\p{N}]+/gu;
const NEGATION = /\b(not|no|never|nor|none|nothing|nobody|neither|without|stopped|quit)\b/iu;
/** Stands for any negation, so "likes coffee" and "no longer likes coffee" differ in one token. */
const NEGATED = '¬';

/**
 * What a memory says, as a set: Porter stems of its words without English stop words, plus a
 * negation mark when it denies something. Word order and inflection are ignored; numbers count.
 */
export function meaningTokens(text: string): Set<string> {
  // "doesn't" → "does not": the same tokens as the spelled-out form.
  const spelled = text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/n['’]t\b/gu, ' not');
  const words = spelled.match(WORD_PATTERN) ?? [];
  const tokens = new Set(words.filter((word) => !STOP_WORDS.has(word)).map((word) => stemmer(word)));
  if (NEGATION.test(spelled)) tokens.add(NEGATED);
  return tokens;
}

/** Jaccard similarity of the two texts' meaning tokens, in [0, 1]; 0 when either has none. */
export function tokenSetSimilarity(left: string, right: string): number {
  const a = meaningTokens(left);
  const b = meaningTokens(right);
  if (a.size === 0 || b.size === 0) return 0;
  let shared = 0;
  for (const token of a) if (b.has(token)) shared++;
  return shared / (a.size + b.size - shared);
}

/**
 * The person's memory that `content` restates, if any: the most similar of the few best lexical
 * matches, when its token-set similarity reaches `threshold`.
 */
export async function findLexicalDuplicate(options: {
  store: MemoryStore;
  userId: string;
  content: string;
  threshold: number;
  abortSignal?: AbortSignal | undefined;
}): Promise<{ memory: Memory; similarity: number } | undefined> {
  const hits = await options.store.search({
    userId: options.userId,
    text: options.content,
    limit: 5,
    abortSignal: options.abortSignal,
  });
  let best: { memory: Memory; similarity: number } | undefined;
  for (const { memory } of hits) {
    const similarity = tokenSetSimilarity(options.content, memory.content);
    if (similarity >= options.threshold && (!best || similarity > best.similarity))
      best = { memory, similarity };
  }
  return best;
}
