import { approximateTokenCounter } from '@nexus/limits-kit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MemoryStore } from '../model/memory-store.ts';
import { DAY_MS } from '../ranking/memory-scoring.ts';
import { MemoryService } from '../service/memory-service.ts';
import { createSqliteMemoryStore } from '../sqlite/sqlite-memory-store.ts';
import { GLOBAL_CONTEXT_HEADER } from './context-block.ts';

const START = Date.UTC(2026, 0, 5);

describe('context: global memories always present, recently used memories fresher', () => {
  let store: MemoryStore;
  let clock: number;
  let service: MemoryService;
  beforeEach(() => {
    store = createSqliteMemoryStore({ path: ':memory:' });
    clock = START;
    service = new MemoryService({ store, now: () => clock, tokenCounter: approximateTokenCounter });
  });
  afterEach(async () => {
    await store.close();
  });

  it('puts the most important global memories in every context within their budget, word match or not', async () => {
    await service.add({
      scope: 'global',
      content: 'The office is closed on public holidays',
      category: 'event',
    });
    await service.add({
      scope: 'global',
      content: 'Answer in British English',
      category: 'preference',
      source: 'user_explicit',
    });
    await service.add({ scope: 'global', content: 'The team uses Lisbon time', category: 'fact' });
    await service.add({ userId: 'ada', content: 'Has a dog named Rex', source: 'user_explicit' });

    const context = await service.context({ userId: 'ada', query: 'what is my dog called?' });
    const globalPart = context.context.split(GLOBAL_CONTEXT_HEADER)[1] ?? '';
    // No word of the message is in them, and all three are there, most important first.
    expect(globalPart.indexOf('British English')).toBeGreaterThan(-1);
    expect(globalPart.indexOf('British English')).toBeLessThan(globalPart.indexOf('Lisbon time'));
    expect(globalPart.indexOf('Lisbon time')).toBeLessThan(globalPart.indexOf('public holidays'));
    expect(context.context).toContain('Has a dog named Rex');

    // A small budget keeps only the most important; a word match still competes on its own.
    const small = await service.context({ userId: 'ada', query: 'dog', globalTokenBudget: 30 });
    expect(small.context).toContain('British English');
    expect(small.context).not.toContain('Lisbon time');
    const matched = await service.context({ userId: 'ada', query: 'holidays?', globalTokenBudget: 30 });
    expect(matched.context).toContain('public holidays');

    const none = await service.context({ userId: 'ada', query: 'dog', globalTokenBudget: 0 });
    expect(none.context).not.toContain(GLOBAL_CONTEXT_HEADER);
  });

  it('counts a memory that recently went into a reply as fresher than one untouched', async () => {
    const used = await service.add({ userId: 'ada', content: 'Plays chess with Sam' });
    clock += 20 * DAY_MS;
    const untouched = await service.add({ userId: 'ada', content: 'Plays chess online' });
    clock += 60 * DAY_MS;
    const before = await service.search({ userId: 'ada', query: 'chess' });
    expect(before.map((hit) => hit.id)).toEqual([untouched.memory.id, used.memory.id]);
    await store.markUsed({ ids: [used.memory.id], at: clock });
    clock += DAY_MS;
    const after = await service.search({ userId: 'ada', query: 'chess' });
    expect(after.map((hit) => hit.id)).toEqual([used.memory.id, untouched.memory.id]);
  });
});
