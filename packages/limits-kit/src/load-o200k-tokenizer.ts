import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parseRankTable } from './o200k-rank-table.ts';
import { createO200kCountTokens } from './o200k-tokenizer.ts';

const require = createRequire(import.meta.url);

/** Where the o200k_base ranks are: gpt-tokenizer's copy of OpenAI's published file. */
export function o200kRanksPath(): string {
  return require.resolve('gpt-tokenizer/data/o200k_base.tiktoken');
}

/**
 * The o200k_base counter, its ranks read from gpt-tokenizer's `data/o200k_base.tiktoken` into
 * typed arrays (o200k-rank-table.ts). gpt-tokenizer's own encoder kept the same table as a Map of
 * 200,000 strings and arrays, about 20 MB of the V8 heap that every collection walks; this one is
 * about 4 MB outside it, and counts the same (o200k-tokenizer.test.ts compares them). Only the
 * data file of gpt-tokenizer is read at run time, none of its code.
 */
export function loadO200kTokenizer(): { countTokens(text: string): number } {
  return { countTokens: createO200kCountTokens(parseRankTable(readFileSync(o200kRanksPath()))) };
}
