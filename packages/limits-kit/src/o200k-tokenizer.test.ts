import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { loadO200kTokenizer, o200kRanksPath } from './load-o200k-tokenizer.ts';
import { longRuns, randomText, seededRandom, WRITTEN_SAMPLES } from './testing/o200k-corpus.ts';

const require = createRequire(import.meta.url);
/** gpt-tokenizer's own o200k_base, the reference: the library is needed by this test only. */
const reference = require('gpt-tokenizer/encoding/o200k_base') as {
  countTokens(text: string, options: { disallowedSpecial: Set<string> }): number;
};
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };
const ours = loadO200kTokenizer();

/** Texts whose count differs from the reference, with both counts (empty when all agree). */
function differences(texts: readonly string[]): { text: string; ours: number; reference: number }[] {
  return texts.flatMap((text) => {
    const counted = ours.countTokens(text);
    const expected = reference.countTokens(text, PLAIN_TEXT);
    return counted === expected
      ? []
      : [{ text: JSON.stringify(text.slice(0, 80)), ours: counted, reference: expected }];
  });
}

describe('o200k_base counter', () => {
  it('counts written samples exactly as gpt-tokenizer: languages, emoji, code, URLs, numbers, whitespace, special-token text', () => {
    expect(differences(WRITTEN_SAMPLES)).toEqual([]);
  });

  it('counts the samples joined and concatenated in pairs exactly (pieces that cross sample boundaries)', () => {
    const joined = [WRITTEN_SAMPLES.join(''), WRITTEN_SAMPLES.join(' '), WRITTEN_SAMPLES.join('\n\n')];
    const pairs = WRITTEN_SAMPLES.flatMap((first, index) =>
      WRITTEN_SAMPLES.slice(index + 1, index + 6).map((second) => first + second),
    );
    expect(differences([...joined, ...pairs])).toEqual([]);
  });

  it('counts long runs of one character or unit exactly, through the heap merge (up to 8,000 repeats)', () => {
    const runs = longRuns();
    expect(runs.some((run) => new TextEncoder().encode(run).length > 20_000)).toBe(true);
    expect(differences(runs)).toEqual([]);
  });

  it('counts 10,000 seeded random strings exactly (mixed scripts, emoji, lone surrogates, byte-order marks)', () => {
    const random = seededRandom(0x0200_0b);
    const texts = Array.from({ length: 10_000 }, () => randomText(random));
    expect(texts.some((text) => /[\uD800-\uDBFF](?![\uDC00-\uDFFF])/.test(text))).toBe(true);
    expect(texts.some((text) => text.includes('\uFEFF'))).toBe(true);
    expect(differences(texts)).toEqual([]);
  });

  it('counts long random words with no space exactly (thousands of bytes in one piece)', () => {
    const random = seededRandom(7);
    const letters = 'abcdefghijklmnopqrstuvwxyzäöüéß日本語';
    const texts = Array.from({ length: 20 }, (_, index) => {
      let word = '';
      for (let at = 0; at < 500 + index * 300; at += 1)
        word += letters[Math.floor(random() * letters.length)];
      return word;
    });
    expect(differences(texts)).toEqual([]);
  });

  it('counts text with lone surrogates where tokens hold U+FFFD exactly (each one written as a lone surrogate)', () => {
    // gpt-tokenizer never matches such a piece whole, by string; ours looks up its bytes (U+FFFD
    // in the surrogate's place). Equal counts here show that shortcut changes nothing.
    const withReplacementCharacter = readFileSync(o200kRanksPath(), 'latin1')
      .split('\n')
      .map((line) => Buffer.from(line.slice(0, line.indexOf(' ')), 'base64').toString('utf8'))
      .filter((token) => token.includes('\uFFFD'));
    expect(withReplacementCharacter.length).toBeGreaterThan(10);
    const texts = withReplacementCharacter.flatMap((token) => [
      token.replaceAll('\uFFFD', '\uD800'),
      token.replaceAll('\uFFFD', '\uDFFF'),
      token,
    ]);
    expect(differences(texts)).toEqual([]);
  });

  it('counts the empty text as no tokens', () => {
    expect(ours.countTokens('')).toBe(0);
  });
});
