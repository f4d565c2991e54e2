/** Counts tokens the way the model will. `name` says which tokenizer is in use. */
export interface TokenCounter {
  readonly name: string;
  count(text: string): number;
}

const CACHE_LIMIT = 10_000;
/** Special-token text such as `<|endoftext|>` in a memory is ordinary text, never a throw. */
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/**
 * The o200k_base tokenizer (GPT-4o family) through gpt-tokenizer — the same library core counts
 * history with, so a process holds one copy of the tables — with a bounded cache because the same
 * fact lines are counted again on every turn. Falls back to `approximateTokenCounter` only when
 * the tokenizer cannot be loaded, and says so through `name`. Loaded once per process.
 */
export function createTokenCounter(): Promise<TokenCounter> {
  shared ??= loadTokenCounter();
  return shared;
}

let shared: Promise<TokenCounter> | undefined;

async function loadTokenCounter(): Promise<TokenCounter> {
  try {
    const { countTokens } = await import('gpt-tokenizer/encoding/o200k_base');
    const cache = new Map<string, number>();
    return {
      name: 'o200k_base',
      count(text) {
        const cached = cache.get(text);
        if (cached !== undefined) return cached;
        const count = text.length === 0 ? 0 : countTokens(text, PLAIN_TEXT);
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
