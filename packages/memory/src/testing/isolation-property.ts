import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import type { Embedder } from '../embedders/embedder.ts';
import { contentHash } from '../model/content-hash.ts';
import type { Memory } from '../model/memory.ts';
import type { MemoryStore } from '../model/memory-store.ts';
import type { MemoryService } from '../service/memory-service.ts';
import { seededRandom } from './seeded-random.ts';

const VOCABULARY = (
  'tea coffee morning evening jazz piano trains harbour garden dog cat bicycle marathon dutch ' +
  'spanish recipe pasta spicy vegan allergy peanuts doctor nurse teacher kyoto lisbon winter ' +
  'summer books poetry chess football budget savings sister brother birthday concert hiking'
).split(' ');

/**
 * Property: with every person holding the same wording, no search, context, list, get,
 * delete, reset or session query for one person ever returns or changes another's memories.
 */
export function describeIsolationProperty(options: {
  scale: { people: number; memoriesPerPerson: number };
  store: () => MemoryStore;
  service: () => MemoryService;
  embedder: Embedder;
}): void {
  const { people, memoriesPerPerson } = options.scale;
  it(`isolates people: ${people} people × ${memoriesPerPerson} memories with overlapping wording`, async () => {
    const random = seededRandom(20_260_101);
    const pick = () => VOCABULARY[Math.floor(random() * VOCABULARY.length)] ?? 'tea';
    const texts = Array.from(
      { length: memoriesPerPerson },
      (_, index) => `Likes ${pick()} ${pick()} and ${pick()} ${pick()} note ${index}`,
    );
    const embeddings = await options.embedder.embed({ texts });
    const owner = new Map<string, string>();
    const idsOf = new Map<string, string[]>();
    const store = options.store();
    const personOf = (index: number) => `person-${index}`;
    for (let person = 0; person < people; person++) {
      const userId = personOf(person);
      const items = texts.map((content, index) => {
        const memory: Memory = {
          id: randomUUID(),
          userId,
          scope: 'user',
          content,
          category: 'fact',
          source: 'inferred',
          createdAt: 1_000 + index,
          updatedAt: 1_000 + index,
          hash: contentHash(content),
          metadata: {},
        };
        if (index % 10 === 0) memory.sessionId = 'shared-session';
        owner.set(memory.id, userId);
        return { memory, embedding: embeddings[index] };
      });
      idsOf.set(
        userId,
        items.map((item) => item.memory.id),
      );
      await store.insertMany({ items });
    }
    const service = options.service();
    const ownedBy = (userId: string, ids: readonly string[]) => ids.every((id) => owner.get(id) === userId);

    for (let person = 0; person < people; person++) {
      const userId = personOf(person);
      const query = `${pick()} ${pick()} ${pick()}`;
      const found = await service.search({ userId, query, limit: 50 });
      expect(found.length).toBeGreaterThan(0);
      expect(
        ownedBy(
          userId,
          found.map((result) => result.id),
        ),
      ).toBe(true);
      const context = await service.context({ userId, query, sessionId: 'shared-session' });
      expect(ownedBy(userId, context.memoryIds)).toBe(true);
      const listed = await service.list({ userId, limit: 1_000 });
      expect(listed).toHaveLength(memoriesPerPerson);
      expect(
        ownedBy(
          userId,
          listed.map((memory) => memory.id),
        ),
      ).toBe(true);
      const session = await service.sessionMemories({ sessionId: 'shared-session', userId });
      expect(session).toHaveLength(Math.ceil(memoriesPerPerson / 10));
      expect(
        ownedBy(
          userId,
          session.map((memory) => memory.id),
        ),
      ).toBe(true);
    }

    // Another person's id is invisible and undeletable.
    for (let attempt = 0; attempt < 20; attempt++) {
      const person = Math.floor(random() * people);
      const other = (person + 1 + Math.floor(random() * (people - 1))) % people;
      const foreignId = idsOf.get(personOf(other))?.[Math.floor(random() * memoriesPerPerson)] ?? '';
      expect(await service.get({ userId: personOf(person), id: foreignId })).toBeUndefined();
      expect(await service.delete({ userId: personOf(person), id: foreignId })).toEqual({ deleted: false });
      expect((await service.get({ userId: personOf(other), id: foreignId }))?.id).toBe(foreignId);
    }

    // The same wording for a newcomer is a new memory, never a duplicate of someone else's.
    const newcomer = await service.add({ userId: 'newcomer', content: texts[0] ?? '' });
    expect(newcomer.action).toBe('inserted');

    // Reset removes exactly one person's memories.
    const before = await service.stats();
    expect(await service.reset({ userId: personOf(0) })).toEqual({ deleted: memoriesPerPerson });
    const after = await service.stats();
    expect(after.totalMemories).toBe(before.totalMemories - memoriesPerPerson);
    expect(after.users).toEqual(before.users.filter((user) => user.userId !== personOf(0)));
    if (people > 1)
      expect(await service.list({ userId: personOf(1), limit: 1_000 })).toHaveLength(memoriesPerPerson);
  });
}
