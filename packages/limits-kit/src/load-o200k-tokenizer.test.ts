import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { loadO200kTokenizer, parseTiktokenRanks } from './load-o200k-tokenizer.ts';

const require = createRequire(import.meta.url);

describe('loadO200kTokenizer', () => {
  it('builds the same rank table as the package generates from the same data', () => {
    const generated = require('gpt-tokenizer/bpeRanks/o200k_base').default as (string | number[])[];
    const ours = parseTiktokenRanks(
      readFileSync(require.resolve('gpt-tokenizer/data/o200k_base.tiktoken'), 'latin1'),
    );
    expect(ours.length).toBe(generated.length);
    const differing = ours.flatMap((rank, index) =>
      JSON.stringify(rank) === JSON.stringify(generated[index]) ? [] : [index],
    );
    expect(differing).toEqual([]);
    // Both kinds of entry are there: text tokens and byte tokens that are not valid UTF-8 alone.
    expect(ours.some((rank) => Array.isArray(rank))).toBe(true);
  });

  it('counts like the package’s own o200k_base encoding, special-token text as plain text', () => {
    const ours = loadO200kTokenizer();
    const theirs = require('gpt-tokenizer/encoding/o200k_base') as ReturnType<typeof loadO200kTokenizer>;
    const plain = { disallowedSpecial: new Set<string>() };
    for (const text of [
      'hello world',
      'Ünïcödé, 日本語のテキスト, emoji 🎉🧪 and Ελληνικά',
      '<|endoftext|> is text here',
      '\uFEFFa byte-order mark, then code: const x = () => { return 42; };',
      'x'.repeat(5000),
    ])
      expect(ours.countTokens(text, plain)).toBe(theirs.countTokens(text, plain));
  });

  it('refuses a line without a rank instead of building a wrong table', () => {
    expect(() => parseTiktokenRanks('IQ== 0\nIg==\n')).toThrow(/Invalid tiktoken line/);
  });
});
