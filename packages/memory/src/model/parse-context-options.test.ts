import { schemaEdgeCases } from '@nexus/testkit/schema';
import { describe, expect, it } from 'vitest';
import { type MemoryContextOptions, memoryContextOptionsSchema } from './memory-api.ts';
import { parseContextOptions } from './parse-context-options.ts';
import { parseInput } from './parse-input.ts';

/** What the schema itself makes of `value`: its output, or the error it throws. */
function bySchema(value: unknown): unknown {
  try {
    return parseInput(memoryContextOptionsSchema, value);
  } catch (error) {
    return error;
  }
}

function byFastPath(value: unknown): unknown {
  try {
    return parseContextOptions(value as MemoryContextOptions);
  } catch (error) {
    return error;
  }
}

const signal = new AbortController().signal;
const cases: Array<[string, unknown]> = [
  [
    'what core sends',
    {
      userId: 'web:alice',
      query: 'what do I like?',
      recentTurns: ['hi', 'hello'],
      tokenBudget: 1500,
      limit: 12,
      sessionId: 'web:alice:c1',
      standing: { limit: 5, tokenBudget: 300 },
      abortSignal: signal,
    },
  ],
  ['defaults only', { userId: 'u1', query: '' }],
  [
    'unknown keys left out',
    { userId: 'u1', query: 'q', extra: 1, standing: { limit: 1, tokenBudget: 0, more: true } },
  ],
  [
    'bounds',
    {
      userId: 'u'.repeat(512),
      query: 'q'.repeat(32_000),
      tokenBudget: 200_000,
      globalTokenBudget: 0,
      limit: 200,
    },
  ],
  [
    'twenty turns of 8000',
    { userId: 'u1', query: 'q', recentTurns: Array.from({ length: 20 }, () => 't'.repeat(8_000)) },
  ],
  [
    'explicit undefined',
    { userId: 'u1', query: 'q', sessionId: undefined, standing: undefined, abortSignal: undefined },
  ],
  ['id to trim', { userId: '  u1 ', query: 'q', sessionId: ' s1' }],
  ['empty id', { userId: '', query: 'q' }],
  ['blank id', { userId: '   ', query: 'q' }],
  ['id too long', { userId: 'u'.repeat(513), query: 'q' }],
  ['no user', { query: 'q' }],
  ['query too long', { userId: 'u1', query: 'q'.repeat(32_001) }],
  ['query not text', { userId: 'u1', query: 3 }],
  ['too many turns', { userId: 'u1', query: 'q', recentTurns: Array.from({ length: 21 }, () => 't') }],
  ['turn too long', { userId: 'u1', query: 'q', recentTurns: ['t'.repeat(8_001)] }],
  ['turn not text', { userId: 'u1', query: 'q', recentTurns: [1] }],
  ['fractional budget', { userId: 'u1', query: 'q', tokenBudget: 1.5 }],
  ['negative budget', { userId: 'u1', query: 'q', globalTokenBudget: -1 }],
  ['limit zero', { userId: 'u1', query: 'q', limit: 0 }],
  ['limit over', { userId: 'u1', query: 'q', limit: 201 }],
  ['limit NaN', { userId: 'u1', query: 'q', limit: Number.NaN }],
  ['limit as text', { userId: 'u1', query: 'q', limit: '5' }],
  ['standing without budget', { userId: 'u1', query: 'q', standing: { limit: 5 } }],
  ['standing limit zero', { userId: 'u1', query: 'q', standing: { limit: 0, tokenBudget: 10 } }],
  ['standing null', { userId: 'u1', query: 'q', standing: null }],
  ['signal not a signal', { userId: 'u1', query: 'q', abortSignal: {} }],
  ['no options', undefined],
  ['not an object', 'u1'],
];

// Every limit the schema declares, read from the schema: a limit changed there and not in the
// fast path fails here.
const edges = schemaEdgeCases(memoryContextOptionsSchema, cases[0]?.[1] as Record<string, unknown>);

describe('parseContextOptions', () => {
  it.each([...cases, ...edges])('gives what the schema gives: %s', (_name, value) => {
    const expected = bySchema(value);
    const actual = byFastPath(value);
    if (expected instanceof Error) {
      expect(actual).toBeInstanceOf(expected.constructor);
      expect((actual as Error).message).toBe(expected.message);
    } else {
      expect(actual).toEqual(expected);
    }
  });
});
