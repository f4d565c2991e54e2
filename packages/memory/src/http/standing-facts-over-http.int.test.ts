import { approximateTokenCounter } from '@nexus/limits-kit';
import { afterEach, describe, expect, it } from 'vitest';
import type { MemoryApi, MemoryContextOptions } from '../model/memory-api.ts';
import { MemoryService } from '../service/memory-service.ts';
import { createSqliteMemoryStore } from '../sqlite/sqlite-memory-store.ts';
import { createMemoryClient } from './memory-http-client.ts';
import { startMemoryHttpServer } from './memory-http-server.ts';

const API_KEY = 'test-key-0123456789';
const DAY_MS = 86_400_000;
const NOW = Date.UTC(2026, 3, 1);

/**
 * A memory service from before the `standing` request: its schema does not know the field (zod
 * drops unknown keys), so it answers the plain block and no `standing` report.
 */
function olderService(service: MemoryService): MemoryApi {
  return new Proxy(service, {
    get(target, property, receiver) {
      if (property !== 'context') {
        const value = Reflect.get(target, property, receiver);
        // The service keeps its state in private fields, so its methods run on the service itself.
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return async ({ standing: _standing, ...options }: MemoryContextOptions) => {
        const { standing: _report, ...answer } = await target.context(options);
        return answer;
      };
    },
  });
}

async function seeded() {
  let clock = NOW - 40 * DAY_MS;
  const store = createSqliteMemoryStore({ path: ':memory:' });
  const service = new MemoryService({ store, now: () => clock, tokenCounter: approximateTokenCounter });
  await service.add({
    userId: 'ada',
    content: 'Is vegetarian',
    category: 'preference',
    source: 'user_explicit',
  });
  clock += 30 * DAY_MS;
  await service.add({ userId: 'ada', content: 'Lives in Lisbon', category: 'fact', source: 'user_explicit' });
  await service.add({ userId: 'ada', content: 'Went to the dentist', category: 'event' });
  await service.add({ scope: 'global', content: 'The assistant is called Nexus and lives in Lisbon too' });
  clock = NOW;
  return { store, service };
}

const REQUEST = {
  userId: 'ada',
  query: 'Lisbon',
  tokenBudget: 2_000,
  limit: 20,
  standing: { limit: 2, tokenBudget: 400 },
} as const;

describe('standing facts in the context block', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  it('memory merges them after the person’s facts and ahead of the global section, best first', async () => {
    const { store, service } = await seeded();
    cleanups.push(() => store.close());
    const plain = await service.context({ ...REQUEST, standing: undefined });
    expect(plain.standing).toBeUndefined();
    const answer = await service.context(REQUEST);
    expect(answer.context).toBe(
      [
        '## Known Facts (from memory)',
        '- Lives in Lisbon (fact, 1 week ago, you told me)',
        // Standing order: recency plus the prior, so last week's event comes before an old preference.
        '- Went to the dentist (event, 1 week ago, inferred)',
        '- Is vegetarian (preference, 1 month ago, you told me)',
        '',
        '## Known Facts for everyone (global)',
        '- The assistant is called Nexus and lives in Lisbon too (fact, 1 week ago, inferred)',
        '',
      ].join('\n'),
    );
    expect(answer.standing).toMatchObject({ status: 'ok', candidates: 3 });
    expect(answer.memoriesUsed).toBe(plain.memoriesUsed + 2);
    expect(answer.memoryIds.slice(0, plain.memoryIds.length)).toEqual(plain.memoryIds);
    expect(answer.tokensUsed).toBe(approximateTokenCounter.count(answer.context));
    // Their own budget: one line's worth keeps only the best one.
    const tight = await service.context({ ...REQUEST, standing: { limit: 2, tokenBudget: 14 } });
    expect(tight.context).toContain('dentist');
    expect(tight.context).not.toContain('vegetarian');
  });

  it('the HTTP client gets the same block from a current service and from one that predates `standing`', async () => {
    const { store, service } = await seeded();
    const current = await startMemoryHttpServer({ service, apiKey: API_KEY, maxBodyBytes: 65_536 });
    const older = await startMemoryHttpServer({
      service: olderService(service),
      apiKey: API_KEY,
      maxBodyBytes: 65_536,
    });
    cleanups.push(async () => {
      await current.close();
      await older.close();
      await store.close();
    });
    const options = { apiKey: API_KEY, tokenCounter: approximateTokenCounter, now: () => NOW };
    const fromCurrent = await createMemoryClient({ ...options, baseUrl: current.url }).context(REQUEST);
    const fromOlder = await createMemoryClient({ ...options, baseUrl: older.url }).context(REQUEST);
    const comparable = ({ durationMs: _d, scopes: _s, standing, ...rest }: typeof fromCurrent) => ({
      ...rest,
      standing: { status: standing?.status, candidates: standing?.candidates },
    });
    expect(fromOlder.standing).toMatchObject({ status: 'ok', candidates: 3 });
    expect(fromOlder.context).toContain('- Is vegetarian (preference, 1 month ago, you told me)');
    expect(comparable(fromOlder)).toEqual(comparable(fromCurrent));
    // Asked without `standing`, both answer the plain block and no report.
    const plain = await createMemoryClient({ ...options, baseUrl: older.url }).context({
      ...REQUEST,
      standing: undefined,
    });
    expect(plain.standing).toBeUndefined();
    expect(plain.context).not.toContain('vegetarian');
  });
});
