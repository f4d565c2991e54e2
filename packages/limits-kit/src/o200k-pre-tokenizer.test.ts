import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { forEachO200kPiece, O200K_PIECE } from './o200k-pre-tokenizer.ts';
import { longRuns, randomText, seededRandom, WRITTEN_SAMPLES } from './testing/o200k-corpus.ts';

const require = createRequire(import.meta.url);
const { O200K_TOKEN_SPLIT_REGEX } = require('gpt-tokenizer/cjs/encodingParams/constants') as {
  O200K_TOKEN_SPLIT_REGEX: RegExp;
};

const ourPieces = (text: string): string[] => {
  const pieces: string[] = [];
  forEachO200kPiece(text, (start, end) => pieces.push(text.slice(start, end)));
  return pieces;
};

describe('forEachO200kPiece', () => {
  it('uses the pattern gpt-tokenizer uses for o200k_base, character for character', () => {
    expect(O200K_PIECE).toBe(O200K_TOKEN_SPLIT_REGEX.source);
    expect(O200K_TOKEN_SPLIT_REGEX.flags).toBe('gu');
  });

  it('cuts text into the pieces gpt-tokenizer’s matchAll gives, on samples, long runs and 2,000 random strings', () => {
    const random = seededRandom(99);
    const texts = [
      ...WRITTEN_SAMPLES,
      ...longRuns().filter((run) => run.length < 2_000),
      ...Array.from({ length: 2_000 }, () => randomText(random)),
    ];
    const differing = texts.filter(
      (text) =>
        JSON.stringify(ourPieces(text)) !==
        JSON.stringify([...text.matchAll(O200K_TOKEN_SPLIT_REGEX)].map(([piece]) => piece)),
    );
    expect(differing).toEqual([]);
    expect(ourPieces("Hello, world! It's 2024\n\n  ok")).toEqual([
      'Hello',
      ',',
      ' world',
      '!',
      " It's",
      ' ',
      '202',
      '4',
      '\n\n',
      ' ',
      ' ok',
    ]);
  });
});
