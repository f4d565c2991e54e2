import { loadO200kTokenizer } from './load-o200k-tokenizer.ts';

/** Counts tokens of prompt text the way the model will; history and memory cut to budgets with it. */
export interface TokenCounter {
  count(text: string): number;
  /** Which tokenizer is in use: `o200k_base`, or `chars/4` for the estimate. */
  readonly name: string;
  /** False for the characters-per-token estimate. */
  readonly exact: boolean;
}

/** Special-token text such as `<|endoftext|>` in user input is counted as plain text, never rejected. */
type CountTokens = (text: string) => number;
/**
 * The count cache holds the texts themselves as keys, so it is bounded by their total length too:
 * 10,000 long history messages would otherwise keep tens of MB alive.
 */
const CACHE_LIMIT = 10_000;
const CACHE_CHARACTER_LIMIT = 1_000_000;
/** Longer texts are counted each time rather than kept (a pasted document is rarely re-counted). */
const CACHE_TEXT_LIMIT = 20_000;

/** The fallback when no tokenizer can be loaded: about four characters per token, rounded up. */
export const approximateTokenCounter: TokenCounter = {
  count: (text) => Math.ceil(text.length / 4),
  name: 'chars/4',
  exact: false,
};

/**
 * The o200k_base tokenizer (load-o200k-tokenizer.ts, counts identical to gpt-tokenizer's), loaded
 * on the first count rather than at start: its tables cost about 80 ms and 8–10 MB of RSS, which
 * an idle gateway should not carry. Counting is synchronous, so the first count loads them synchronously and that
 * one turn pays the load. Counts are cached (bounded) because the same history messages and fact
 * lines are counted again on every turn. If the tokenizer cannot be loaded, counts fall back to
 * the 4-characters-per-token estimate and `exact` turns false. `load` is for tests.
 */
export function createTokenCounter(
  load: () => { countTokens: CountTokens } = loadO200kTokenizer,
): TokenCounter & { readonly cachedCharacters: number } {
  let countTokens: ((text: string) => number) | undefined;
  let fellBack = false;
  const cache = new Map<string, number>();
  let cachedCharacters = 0;
  const loaded = (): ((text: string) => number) => {
    if (countTokens) return countTokens;
    try {
      const tokenizer = load();
      countTokens = (text) => tokenizer.countTokens(text);
    } catch {
      fellBack = true;
      countTokens = approximateTokenCounter.count;
    }
    return countTokens;
  };
  return {
    count(text) {
      if (text.length === 0) return 0;
      const cached = cache.get(text);
      if (cached !== undefined) return cached;
      const count = loaded()(text);
      if (text.length > CACHE_TEXT_LIMIT) return count;
      while (cache.size >= CACHE_LIMIT || cachedCharacters + text.length > CACHE_CHARACTER_LIMIT) {
        const oldest = cache.keys().next().value as string;
        cache.delete(oldest);
        cachedCharacters -= oldest.length;
      }
      cache.set(text, count);
      cachedCharacters += text.length;
      return count;
    },
    get name() {
      return fellBack ? approximateTokenCounter.name : 'o200k_base';
    },
    get exact() {
      return !fellBack;
    },
    /** Length of the texts the count cache holds (its memory bound). */
    get cachedCharacters() {
      return cachedCharacters;
    },
  };
}

let shared: TokenCounter | undefined;

/** One counter per process, so history and memory share the tokenizer's tables and cache. */
export function sharedTokenCounter(): TokenCounter {
  shared ??= createTokenCounter();
  return shared;
}
