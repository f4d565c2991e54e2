import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { contentHash } from '../model/content-hash.ts';
import type { Memory, MemoryScope } from '../model/memory.ts';
import type { MemoryStore } from '../model/memory-store.ts';
import { DAY_MS } from '../ranking/memory-scoring.ts';
import { STANDING_KINDS } from '../ranking/standing-kinds.ts';
import { compareStanding } from '../ranking/standing-order.ts';
import type { MemoryService } from '../service/memory-service.ts';
import { seededRandom } from './seeded-random.ts';

/**
 * Property: a store's indexed standing query picks exactly what reading all of the person's
 * memories and sorting them would pick, on random kinds and times (ties included), with other
 * scopes and another person's newer memories around it.
 */
export function describeStandingFactsProperty(options: {
  store: () => MemoryStore;
  service: (now: () => number) => MemoryService;
}): void {
  it('standing facts: the indexed query picks what sorting every memory picks (random data)', async () => {
    const store = options.store();
    const now = Date.UTC(2026, 5, 1);
    const random = seededRandom(23);
    const memoryOf = (userId: string, scope: MemoryScope, index: number): Memory => {
      const kind = STANDING_KINDS[Math.floor(random() * STANDING_KINDS.length)]!;
      // Whole days over two years, so equal times (ties) are common.
      const updatedAt = now - Math.floor(random() * 730) * DAY_MS;
      const content = `${userId} ${scope} memory ${index}`;
      const memory: Memory = {
        id: randomUUID(),
        userId,
        scope,
        content,
        ...kind,
        createdAt: updatedAt,
        updatedAt,
        hash: contentHash(content),
        metadata: {},
      };
      if (scope === 'session') memory.sessionId = 'standing-session';
      return memory;
    };
    const items = [
      ...Array.from({ length: 400 }, (_, index) => memoryOf('ada', 'user', index)),
      ...Array.from({ length: 40 }, (_, index) => memoryOf('ada', 'session', index)),
      ...Array.from({ length: 60 }, (_, index) => ({ ...memoryOf('grace', 'user', index), updatedAt: now })),
    ].map((memory) => ({ memory }));
    await store.insertMany({ items });
    const everything = await store.list({ userId: 'ada', scopes: ['user'], limit: 1_000, offset: 0 });
    expect(everything).toHaveLength(400);
    for (const at of [now, now + 90 * DAY_MS, now + 3 * 365 * DAY_MS]) {
      const order = compareStanding(at);
      const service = options.service(() => at);
      for (const limit of [1, 7, 30, 200]) {
        const expected = [...everything].sort(order).slice(0, limit);
        const fromStore = await store.standing({ userId: 'ada', limit, order });
        expect(fromStore.map((memory) => memory.id)).toEqual(expected.map((memory) => memory.id));
        const fromService = await service.standingFacts({ userId: 'ada', limit });
        expect(fromService).toEqual(expected);
      }
    }
    expect(await store.standing({ userId: 'nobody', limit: 10, order: compareStanding(now) })).toEqual([]);
  });
}
