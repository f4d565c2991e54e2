import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { createTokenCounter, sharedTokenCounter } from './token-counter.ts';

const require = createRequire(import.meta.url);

describe('createTokenCounter', () => {
  it('loads o200k_base on the first count, not before, and counts exactly', () => {
    let loads = 0;
    const counter = createTokenCounter(() => {
      loads += 1;
      return require('gpt-tokenizer/encoding/o200k_base');
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
});
