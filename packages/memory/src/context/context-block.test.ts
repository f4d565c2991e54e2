import { randomUUID } from 'node:crypto';
import { sharedTokenCounter, type TokenCounter } from '@nexus/limits-kit';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Memory } from '../model/memory.ts';
import { DAY_MS } from '../ranking/memory-scoring.ts';
import { seededRandom } from '../testing/seeded-random.ts';
import { CONTEXT_HEADER, factLine, packContext } from './context-block.ts';

const NOW = Date.UTC(2026, 5, 1);

function memory(content: string, overrides: Partial<Memory> = {}): Memory {
  return {
    id: randomUUID(),
    userId: 'ada',
    scope: 'user',
    content,
    category: 'fact',
    source: 'inferred',
    createdAt: NOW,
    updatedAt: NOW,
    hash: 'x'.repeat(64),
    metadata: {},
    ...overrides,
  };
}

describe('factLine', () => {
  it('names the category and source and folds the content onto one line', () => {
    const line = factLine(
      memory('Prefers\nshort   answers', { source: 'user_explicit', updatedAt: NOW - 3 * DAY_MS }),
      NOW,
    );
    expect(line).toBe('- Prefers short answers (fact, 3 days ago, you told me)');
    expect(factLine(memory('Works late', { updatedAt: NOW - DAY_MS }), NOW)).toBe(
      '- Works late (fact, yesterday, inferred)',
    );
  });
});

describe('packContext', () => {
  let counter: TokenCounter;
  beforeAll(async () => {
    counter = sharedTokenCounter();
  });

  it('uses the real o200k_base tokenizer', () => {
    expect(counter.name).toBe('o200k_base');
    expect(counter.count('<|endoftext|>')).toBeGreaterThan(1);
  });

  it('skips a fact that does not fit and still takes a later shorter one', () => {
    const long = memory('A very long fact '.repeat(40));
    const short = memory('Short fact');
    const budget = counter.count(`${CONTEXT_HEADER}\n`) + counter.count(`${factLine(short, NOW)}\n`);
    const packed = packContext({ candidates: [long, short], tokenBudget: budget, counter, now: NOW });
    expect(packed.used).toEqual([short]);
    expect(packed.truncated).toBe(true);
    expect(packed.tokensUsed).toBe(budget);
    expect(packed.context).toBe(`${CONTEXT_HEADER}\n- Short fact (fact, today, inferred)\n`);
  });

  it('returns an empty block when nothing fits or nothing is known', () => {
    expect(packContext({ candidates: [], tokenBudget: 100, counter, now: NOW })).toEqual({
      context: '',
      used: [],
      lines: [],
      tokensUsed: 0,
      truncated: false,
    });
    const packed = packContext({ candidates: [memory('x')], tokenBudget: 3, counter, now: NOW });
    expect(packed).toMatchObject({ context: '', tokensUsed: 0, truncated: true });
  });

  it('property: over 1,000 random memory sets the block never exceeds the budget by the tokenizer, and truncated ⇔ a candidate was left out', () => {
    const random = seededRandom(7);
    const words =
      'tea jazz Kyoto 東京 naïve emoji 🎉 <|endoftext|> \n\t code `x` ## heading — "quoted" 42 3.14'.split(
        ' ',
      );
    for (let set = 0; set < 1_000; set++) {
      const count = Math.floor(random() * 30);
      const candidates = Array.from({ length: count }, () => {
        const length = 1 + Math.floor(random() * 60);
        const content = Array.from({ length }, () => words[Math.floor(random() * words.length)]).join(' ');
        return memory(content.trim() || 'x', {
          source: random() < 0.5 ? 'user_explicit' : 'inferred',
          updatedAt: NOW - Math.floor(random() * 400 * DAY_MS),
        });
      });
      const tokenBudget = Math.floor(random() * 600);
      const packed = packContext({ candidates, tokenBudget, counter, now: NOW });
      const actual = packed.context === '' ? 0 : counter.count(packed.context);
      expect(actual).toBe(packed.tokensUsed);
      expect(actual).toBeLessThanOrEqual(tokenBudget);
      expect(packed.truncated).toBe(packed.used.length < candidates.length);
      if (packed.used.length > 0) expect(packed.context.startsWith(`${CONTEXT_HEADER}\n`)).toBe(true);
      // Order is kept: the block lists the chosen candidates in score order.
      const positions = packed.used.map((used) => candidates.indexOf(used));
      expect(positions).toEqual([...positions].sort((left, right) => left - right));
    }
  });
});
