import { randomUUID } from 'node:crypto';
import { approximateTokenCounter } from '@nexus/limits-kit';
import { compareStanding, contentHash, createSqliteMemoryStore, MemoryService } from '@nexus/memory';
import { type MemoryPort, type MemoryRecord, silentLogger } from '@nexus/protocol';
import { seededRandom } from '@nexus/testkit';
import { expect, it } from 'vitest';
import { runMemoryStep } from './run-memory-step.ts';

const DAY_MS = 86_400_000;
const WORDS = 'tea jazz trains garden hiking sushi chess poetry kyoto lisbon'.split(' ');
const CATEGORIES = ['preference', 'fact', 'pattern', 'event'] as const;

/** The selection before the store answered it: list every memory, drop the context's, sort, cut. */
async function listedSelection(
  memory: MemoryPort,
  userId: string,
  used: Set<string>,
  limit: number,
  now: number,
) {
  const all: MemoryRecord[] = [];
  for (let offset = 0; ; offset += 500) {
    const page = await memory.list({ userId, scope: 'user', limit: 500, offset });
    all.push(...page);
    if (page.length < 500) break;
  }
  return all
    .filter((record) => !used.has(record.id))
    .sort(compareStanding(now))
    .slice(0, limit)
    .map((record) => record.id);
}

it('standing facts from the store are the ones listing every memory picked (random people)', async () => {
  for (const seed of [1, 2, 3, 4, 5]) {
    const random = seededRandom(seed);
    const word = () => WORDS[Math.floor(random() * WORDS.length)] ?? 'tea';
    const now = Date.UTC(2026, 5, 1) + Math.floor(random() * 1_000 * DAY_MS);
    const store = createSqliteMemoryStore({ path: ':memory:' });
    const service = new MemoryService({ store, now: () => now, tokenCounter: approximateTokenCounter });
    const count = 200 + Math.floor(random() * 1_500);
    const items = Array.from({ length: count }, (_, index) => {
      const content = `Likes ${word()} and ${word()} ${index}`;
      // Whole days: equal times are common, so the tie-breaks are exercised too.
      const at = now - Math.floor(random() * 800) * DAY_MS;
      return {
        memory: {
          id: randomUUID(),
          userId: 'test:ana',
          scope: random() < 0.9 ? ('user' as const) : ('session' as const),
          ...(random() < 0.1 ? { sessionId: 'conversation-1' } : {}),
          content,
          category: CATEGORIES[Math.floor(random() * 4)]!,
          source: random() < 0.5 ? ('user_explicit' as const) : ('inferred' as const),
          createdAt: at,
          updatedAt: at,
          hash: contentHash(content),
          metadata: {},
        },
      };
    });
    await store.insertMany({ items });
    const profileLimit = 1 + Math.floor(random() * 15);
    const step = await runMemoryStep({
      memory: service,
      userId: 'test:ana',
      query: `${word()} ${word()} ${word()}`,
      sessionId: 'conversation-1',
      budgetMs: 10_000,
      tokenBudget: 2_000,
      limit: 20,
      includeProfile: true,
      includeSessionSummary: false,
      profileTokenBudget: 100_000,
      profileLimit,
      tokenCounter: approximateTokenCounter,
      now: () => now,
      logger: silentLogger,
    });
    // The context's memories come first in the ids, then exactly `profileLimit` standing facts.
    const contextIds = step.report.memoryIds.slice(0, step.report.memoryIds.length - profileLimit);
    const expected = await listedSelection(service, 'test:ana', new Set(contextIds), profileLimit, now);
    expect(step.report.memoryIds.slice(contextIds.length)).toEqual(expected);
    await store.close();
  }
});
