import { isUtf8 } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

type CountTokens = (text: string, options: { disallowedSpecial: Set<string> }) => number;
type RawRanks = (string | number[])[];
interface GptEncodingClass {
  getEncodingApi(
    name: 'o200k_base',
    getMergeableRanks: () => RawRanks,
  ): { countTokens: CountTokens; setMergeCacheSize(size: number): void };
}

/**
 * Words whose merges gpt-tokenizer remembers (least recently used go first). Its default, 100,000,
 * grows over days of varied chat to some 10–15 MB of heap for little gain: the words that repeat
 * are few, and a cached word saves microseconds.
 */
export const MERGE_CACHE_WORDS = 5_000;

const require = createRequire(import.meta.url);

/**
 * gpt-tokenizer's o200k_base, its ranks read from the package's own `data/o200k_base.tiktoken`
 * (one base64 token and its rank a line, OpenAI's published format) instead of its generated
 * `bpeRanks/o200k_base.js`. That module is a 2.4 MB array literal: compiling it left about 40 MB
 * of RSS behind beside the tables themselves (measured: 104 → 81 MB for a bare process that
 * loaded it; docs/deployment.md, "Memory"). The table built here is the one the package's
 * generator builds from the same file: a token that is exact UTF-8 is a string, any other is its
 * bytes, and missing ranks are holes (`load-o200k-tokenizer.test.ts` compares the two).
 */
export function loadO200kTokenizer(): { countTokens: CountTokens } {
  const { GptEncoding } = require('gpt-tokenizer/GptEncoding') as { GptEncoding: GptEncodingClass };
  const encoding = GptEncoding.getEncodingApi('o200k_base', () =>
    parseTiktokenRanks(readFileSync(require.resolve('gpt-tokenizer/data/o200k_base.tiktoken'), 'latin1')),
  );
  encoding.setMergeCacheSize(MERGE_CACHE_WORDS);
  return encoding;
}

/** `.tiktoken` text (`<base64 token> <rank>` lines) as gpt-tokenizer's rank table. */
export function parseTiktokenRanks(text: string): RawRanks {
  const ranks: RawRanks = [];
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    const space = text.indexOf(' ', start);
    if (end > start) {
      if (space === -1 || space > end) throw new Error(`Invalid tiktoken line: ${text.slice(start, end)}`);
      const bytes = Buffer.from(text.slice(start, space), 'base64');
      const rank = Number(text.slice(space + 1, end));
      while (ranks.length < rank) ranks.push('');
      // The generator's decoder drops a leading byte-order mark, so such a token stays bytes there.
      const isText = isUtf8(bytes) && !(bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf);
      ranks.push(isText ? bytes.toString('utf8') : [...bytes]);
    }
    start = end + 1;
  }
  return ranks;
}
