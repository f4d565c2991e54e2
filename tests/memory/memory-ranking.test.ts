import { createSqliteMemoryStore, GLOBAL_CONTEXT_HEADER, MemoryService } from '@nexus/memory';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runMemoryStep } from '../../packages/core/src/memory/context/run-memory-step.ts';
import { approximateTokenCounter } from '../../packages/limits-kit/src/token-counter.ts';
import { silentLogger } from '../../packages/protocol/src/index.ts';

// Ranking as DESIGN §4 and docs/memory.md describe it, on the real MemoryService and SQLite store,
// and core's memory step on top of it.
const DAY_MS = 86_400_000;
const START = Date.parse('2026-11-01T12:00:00Z');
let clock = START;
let store: ReturnType<typeof createSqliteMemoryStore>;
let service: MemoryService;

beforeEach(() => {
  clock = START;
  store = createSqliteMemoryStore({ path: ':memory:' });
  service = new MemoryService({ store, now: () => clock });
});
afterEach(() => store.close());

function step(userId: string, query: string, overrides: { profileLimit?: number } = {}) {
  return runMemoryStep({
    memory: service,
    userId,
    query,
    sessionId: 'test:dm:ann',
    budgetMs: 5_000,
    tokenBudget: 2_000,
    limit: 20,
    includeProfile: true,
    includeSessionSummary: false,
    profileTokenBudget: 400,
    profileLimit: overrides.profileLimit ?? 10,
    tokenCounter: approximateTokenCounter,
    now: () => clock,
    logger: silentLogger,
  });
}

describe('memory ranking', () => {
  it('a stated preference outranks an inferred pattern of near-equal relevance, not a clearly better match', async () => {
    await service.add({
      userId: 'ann',
      content: 'Drinks tea at night',
      category: 'pattern',
      source: 'inferred',
    });
    await service.add({
      userId: 'ann',
      content: 'Prefers tea over coffee at work',
      category: 'preference',
      source: 'user_explicit',
    });
    const hits = await service.search({ userId: 'ann', query: 'tea' });
    expect(hits.map((hit) => hit.content)).toEqual([
      'Prefers tea over coffee at work',
      'Drinks tea at night',
    ]);
    // Without the prior the shorter inferred pattern is slightly more relevant: the prior decided.
    const plain = new MemoryService({ store, now: () => clock, scoring: { priorWeight: 0 } });
    const plainHits = await plain.search({ userId: 'ann', query: 'tea' });
    expect(plainHits.map((hit) => hit.content)).toEqual([
      'Drinks tea at night',
      'Prefers tea over coffee at work',
    ]);
    expect(plainHits[0]!.relevance - plainHits[1]!.relevance).toBeLessThan(0.1);
    // Relevance is rank fusion (k = 10): the next rank is 1/1.1 = 0.909, two ranks down 0.833, so
    // the prior (0.07 between these two) lifts a preference over the memory just ahead of it only.
    const third = await service.add({
      userId: 'ann',
      content: 'Prefers tea over coffee at work and at home, always, with milk and honey in the morning',
      category: 'preference',
      source: 'user_explicit',
    });
    const ranked = await plain.search({ userId: 'ann', query: 'tea' });
    const withPrior = await service.search({ userId: 'ann', query: 'tea' });
    expect(ranked.at(-1)?.id).toBe(third.memory.id);
    expect(withPrior.findIndex((hit) => hit.content === 'Drinks tea at night')).toBeLessThan(
      withPrior.findIndex((hit) => hit.id === third.memory.id),
    );
  });

  it('labels global facts in their own section and gives every line its category', async () => {
    await service.add({
      userId: 'ann',
      content: 'Lives in Lisbon',
      category: 'fact',
      source: 'user_explicit',
    });
    await service.add({ scope: 'global', content: 'The assistant is called Nexus and lives in Lisbon too' });
    const { block } = await step('ann', 'Lisbon');
    expect(block).toBe(
      [
        '## Known Facts (from memory)',
        '- Lives in Lisbon (fact, today, you told me)',
        '',
        GLOBAL_CONTEXT_HEADER,
        '- The assistant is called Nexus and lives in Lisbon too (fact, today, inferred)',
      ].join('\n'),
    );
  });

  it('chooses standing facts by score over all the memories, not the newest few', async () => {
    await service.add({
      userId: 'ann',
      content: 'Is vegetarian',
      category: 'preference',
      source: 'user_explicit',
    });
    clock += 2 * DAY_MS;
    for (let index = 0; index < 40; index++) {
      await service.add({
        userId: 'ann',
        content: `Mentioned errand number ${index}`,
        category: 'event',
        source: 'inferred',
      });
    }
    const { block } = await step('ann', 'hello', { profileLimit: 3 });
    const lines = block.split('\n').filter((line) => line.startsWith('- '));
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe('- Is vegetarian (preference, 2 days ago, you told me)');
  });
});
