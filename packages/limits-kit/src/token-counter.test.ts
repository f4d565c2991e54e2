import { describe, expect, it } from 'vitest';
import { loadO200kTokenizer } from './load-o200k-tokenizer.ts';
import { createTokenCounter, sharedTokenCounter } from './token-counter.ts';

describe('createTokenCounter', () => {
  it('loads o200k_base on the first count, not before, and counts exactly', () => {
    let loads = 0;
    const counter = createTokenCounter(() => {
      loads += 1;
      return loadO200kTokenizer();
    });
    expect(loads).toBe(0);
    expect(counter.exact).toBe(true);
    expect(counter.count('hello world')).toBe(2);
    expect(counter.count('<|endoftext|> is text here')).toBeGreaterThan(1);
    expect(counter.count('')).toBe(0);
    expect(loads).toBe(1);
  });

  it('by default counts with the real tokenizer, special-token text as plain text', () => {
    const counter = createTokenCounter();
    expect(counter.count('hello world')).toBe(2);
    expect(counter.count('<|endoftext|>')).toBeGreaterThan(1);
    expect(counter.exact).toBe(true);
  });

  it('falls back to four characters per token when the tokenizer cannot be loaded', () => {
    const counter = createTokenCounter(() => {
      throw new Error('Cannot find module gpt-tokenizer');
    });
    expect(counter.count('twelve chars')).toBe(3);
    expect(counter.exact).toBe(false);
    expect(counter.name).toBe('chars/4');
  });

  it('shares one counter per process and counts repeated text the same from its cache', () => {
    const counter = sharedTokenCounter();
    expect(sharedTokenCounter()).toBe(counter);
    const text = 'the same history message, counted on every turn';
    expect(counter.count(text)).toBe(counter.count(text));
    expect(counter.name).toBe('o200k_base');
  });

  it('bounds its cache by the length of the texts it keeps, not only their number', () => {
    const counter = createTokenCounter(() => ({ countTokens: (text) => text.length }));
    const message = (index: number) => `${index}:${'x'.repeat(9_990)}`;
    for (let index = 0; index < 300; index += 1)
      expect(counter.count(message(index))).toBe(message(index).length);
    // 300 texts of ~10,000 characters: only the last million characters stay.
    expect(counter.cachedCharacters).toBeLessThanOrEqual(1_000_000);
    expect(counter.cachedCharacters).toBeGreaterThan(900_000);
    // A text longer than the per-text limit is counted, never kept.
    const before = counter.cachedCharacters;
    expect(counter.count('y'.repeat(50_000))).toBe(50_000);
    expect(counter.cachedCharacters).toBe(before);
  });
});
