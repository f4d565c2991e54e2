import { createRequire } from 'node:module';
import { approximateTokenCounter, type TokenCounter } from '@nexus/core';

type CountTokens = (text: string, options: { disallowedSpecial: Set<string> }) => number;

const require = createRequire(import.meta.url);
/** Special-token text such as `<|endoftext|>` in user input is counted as plain text, never rejected. */
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/**
 * The o200k_base tokenizer (gpt-tokenizer), loaded on the first count rather than at start: its
 * tables cost about 0.4 s and 55 MB of RSS, which an idle gateway should not carry (half of the
 * 120 MB it is allowed). Counting is synchronous, so the first count loads the package's CommonJS
 * build with `require` and that one turn pays the load. If it cannot be loaded, counts fall back
 * to the 4-characters-per-token estimate and `exact` turns false. `load` is for tests.
 */
export function createLazyTokenCounter(
  load: () => { countTokens: CountTokens } = () => require('gpt-tokenizer/encoding/o200k_base'),
): TokenCounter {
  let counter: TokenCounter | undefined;
  const loaded = (): TokenCounter => {
    if (counter) return counter;
    try {
      const { countTokens } = load();
      counter = { count: (text) => (text.length === 0 ? 0 : countTokens(text, PLAIN_TEXT)), exact: true };
    } catch {
      counter = approximateTokenCounter;
    }
    return counter;
  };
  return {
    count: (text) => loaded().count(text),
    get exact() {
      return counter?.exact ?? true;
    },
  };
}
