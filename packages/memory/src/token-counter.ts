import { createRequire } from 'node:module';
import type { TiktokenBPE } from 'js-tiktoken/lite';

/** Counts tokens the way the model will. `name` says which tokenizer is in use. */
export interface TokenCounter {
  readonly name: string;
  count(text: string): number;
}

const CACHE_LIMIT = 10_000;

/**
 * The o200k_base tokenizer (GPT-4o family) through js-tiktoken, with a bounded cache because
 * the same fact lines are counted again on every turn. Falls back to `approximateTokenCounter`
 * only when js-tiktoken cannot be loaded, and says so through `name`. Loaded once per process.
 */
export function createTokenCounter(): Promise<TokenCounter> {
  shared ??= loadTokenCounter();
  return shared;
}

let shared: Promise<TokenCounter> | undefined;

async function loadTokenCounter(): Promise<TokenCounter> {
  try {
    // Node's own loader: the rank table is a 2 MB module that test and bundler transforms choke on.
    const require = createRequire(import.meta.url);
    const { Tiktoken } = require('js-tiktoken/lite') as typeof import('js-tiktoken/lite');
    const ranks = require('js-tiktoken/ranks/o200k_base') as { default?: TiktokenBPE } & TiktokenBPE;
    const encoding = new Tiktoken(ranks.default ?? ranks);
    const cache = new Map<string, number>();
    return {
      name: 'o200k_base',
      count(text) {
        const cached = cache.get(text);
        if (cached !== undefined) return cached;
        // Empty allowed/disallowed lists: "<|endoftext|>" in a memory is ordinary text, never a throw.
        const count = encoding.encode(text, [], []).length;
        if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
        cache.set(text, count);
        return count;
      },
    };
  } catch {
    return approximateTokenCounter;
  }
}

/** The 4-characters-per-token rule of thumb; a fallback, rounded up so it rarely undercounts. */
export const approximateTokenCounter: TokenCounter = {
  name: 'chars/4',
  count(text) {
    return Math.ceil(text.length / 4);
  },
};
