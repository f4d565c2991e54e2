import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MemoryStore } from '../model/memory-store.ts';
import { createSqliteMemoryStore } from '../sqlite/sqlite-memory-store.ts';
import { MemoryService } from './memory-service.ts';
import { LEXICAL_DUPLICATE_THRESHOLD, tokenSetSimilarity } from './near-duplicate.ts';

/** The same fact in other words: each pair must count as one memory. */
const PARAPHRASES: Array<[string, string]> = [
  ['Lives in Porto', 'Is living in Porto'],
  ['Lives in Porto now', 'Now living in Porto'],
  ['Prefers short answers', 'Prefers answers that are short'],
  ['Is allergic to peanuts', 'Allergic to peanuts'],
  ['Has a dog named Rex', 'Has a dog, named Rex'],
  ['Works as a nurse', 'Working as a nurse'],
  ['Plays tennis on weekends', 'Played tennis at the weekend'],
  ['Does not eat meat', "Doesn't eat meat"],
];

/** Close in wording, different in meaning: each pair must stay two memories. */
const DIFFERENT: Array<[string, string]> = [
  ['Lives in Porto', 'Lives in Lisbon'],
  ['Works as a nurse', 'Sister works as a nurse'],
  ['Has a dog named Rex', 'Has a cat named Rex'],
  ['Likes coffee', 'Does not like coffee'],
  ['Birthday is in May', 'Birthday is in June'],
  ['Has 2 children', 'Has 3 children'],
  ['Lives in Porto', 'Lives in Porto with a flatmate and two cats'],
  ['Is allergic to peanuts', 'Is allergic to shellfish'],
];

describe('tokenSetSimilarity', () => {
  it.each(PARAPHRASES)('"%s" and "%s" are near-duplicates', (left, right) => {
    expect(tokenSetSimilarity(left, right)).toBeGreaterThanOrEqual(LEXICAL_DUPLICATE_THRESHOLD);
  });

  it.each(DIFFERENT)('"%s" and "%s" stay apart', (left, right) => {
    expect(tokenSetSimilarity(left, right)).toBeLessThan(LEXICAL_DUPLICATE_THRESHOLD);
  });

  it('is 0 for a text without words', () => {
    expect(tokenSetSimilarity('!!!', 'Lives in Porto')).toBe(0);
  });
});

describe('MemoryService near-duplicates without an embedder', () => {
  let store: MemoryStore;
  let service: MemoryService;
  beforeEach(() => {
    store = createSqliteMemoryStore({ path: ':memory:' });
    service = new MemoryService({ store, now: () => Date.UTC(2026, 0, 1) });
  });
  afterEach(async () => {
    await store.close();
  });

  it('stores a fact said twice in other words once, updated to the latest wording', async () => {
    await service.add({ userId: 'ada', content: 'Prefers tea in the morning' });
    const first = await service.add({ userId: 'ada', content: 'Lives in Porto', source: 'user_explicit' });
    const again = await service.add({ userId: 'ada', content: 'Is living in Porto' });
    expect(again).toMatchObject({ action: 'updated', deduplicated: true, previousContent: 'Lives in Porto' });
    expect(again.memory.id).toBe(first.memory.id);
    expect(again.memory.source).toBe('user_explicit');
    const stored = await service.list({ userId: 'ada' });
    expect(stored.map((memory) => memory.content).sort()).toEqual([
      'Is living in Porto',
      'Prefers tea in the morning',
    ]);
  });

  it('keeps look-alikes apart, and another person’s same words are never theirs', async () => {
    for (const [left, right] of DIFFERENT.slice(0, 4)) {
      await service.add({ userId: 'ada', content: left });
      const result = await service.add({ userId: 'ada', content: right });
      expect(result.action).toBe('inserted');
    }
    const other = await service.add({ userId: 'ben', content: 'Is living in Porto' });
    await service.add({ userId: 'ben', content: 'x' });
    expect(other.action).toBe('inserted');
    const adaAgain = await service.add({ userId: 'ada', content: 'Living in Porto' });
    expect(adaAgain.memory.userId).toBe('ada');
  });

  it('can be turned off with a threshold above 1', async () => {
    const strict = new MemoryService({ store, lexicalDuplicateThreshold: 1.01 });
    await strict.add({ userId: 'ada', content: 'Lives in Porto' });
    expect((await strict.add({ userId: 'ada', content: 'Is living in Porto' })).action).toBe('inserted');
  });
});
