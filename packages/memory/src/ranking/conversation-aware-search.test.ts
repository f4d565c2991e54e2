import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MemoryStore } from '../model/memory-store.ts';
import { MemoryService } from '../service/memory-service.ts';
import { createSqliteMemoryStore } from '../sqlite/sqlite-memory-store.ts';
import { DAY_MS } from './memory-scoring.ts';

const START = Date.UTC(2025, 0, 6);

/** Other things the person said: BM25 needs a realistic collection for its word weights (IDF). */
const FILLER = [
  'Asked for a pasta recipe',
  'Watched a film about whales',
  'Is reading a novel about the sea',
  'Asked how to fix a slow laptop',
  'Planned to clean the kitchen on Sunday',
  'Likes jazz on rainy evenings',
  'Asked what time the shops close',
  'Bought new running shoes',
  'Wants to visit Kyoto one day',
  'Asked for a book about space',
  'Has a meeting with the landlord',
  'Takes the train to the office',
];

describe('conversation-aware lexical search (MemoryService on SQLite)', () => {
  let store: MemoryStore;
  let clock: number;
  let service: MemoryService;
  const tell = async (day: number, content: string) => {
    clock = START + day * DAY_MS;
    return (await service.add({ userId: 'ada', content, source: 'user_explicit' })).memory.id;
  };
  beforeEach(async () => {
    store = createSqliteMemoryStore({ path: ':memory:' });
    clock = START;
    service = new MemoryService({ store, now: () => clock });
    for (const content of FILLER) await service.add({ userId: 'ada', content });
  });
  afterEach(async () => {
    await store.close();
  });

  it('finds what a follow-up refers to through the recent turns, and not without them', async () => {
    const samsSister = await tell(0, "Sam's sister Lena works as a pilot");
    await tell(1, 'Sam is a nurse at the city hospital');
    // Newer, so it wins when the message alone is all there is.
    const noorsSister = await tell(10, "Noor's sister Ines is a chef");
    const message = 'and what about her sister?';
    const turns = ['Sam got a promotion at the hospital.', 'Congratulations to Sam!'];
    const alone = await service.search({ userId: 'ada', query: message });
    expect(alone[0]?.id).toBe(noorsSister);
    const followUp = await service.search({ userId: 'ada', query: message, recentTurns: turns });
    expect(followUp[0]?.id).toBe(samsSister);
  });

  it('lets a message that names its subject win over the turns before it', async () => {
    const partner = await tell(0, 'Partner is called Robin');
    await tell(1, 'Has a dog named Miso who loves the park');
    await tell(2, 'Walks the dog in the park every morning');
    const results = await service.search({
      userId: 'ada',
      query: 'What is my partner called?',
      recentTurns: ['The dog ran off in the park again.', 'Oh no! Did Miso come back to the park gate?'],
    });
    expect(results[0]?.id).toBe(partner);
  });

  it('ranks a memory sharing a real word above ones sharing only "what", "is", "my"', async () => {
    const allergy = await tell(0, 'Allergic to peanuts');
    for (let index = 0; index < 5; index++)
      await tell(30 + index, `Asked what my options are for dinner ${index}`);
    const results = await service.search({ userId: 'ada', query: 'What is my allergy? allergic?' });
    expect(results[0]?.id).toBe(allergy);
  });

  it('answers "in May" and "yesterday" from the memory dates when the words tie', async () => {
    const may = await tell(120, 'Went to the dentist, who found a small cavity'); // 6 May 2025
    const june = await tell(150, 'Went to the dentist, who said the teeth look healthy');
    const latest = await tell(200, 'Went to the dentist, who booked a follow-up cleaning');
    clock = START + 201 * DAY_MS;
    const inMay = await service.search({ userId: 'ada', query: 'What did the dentist say in May?' });
    expect(inMay[0]?.id).toBe(may);
    const yesterday = await service.search({ userId: 'ada', query: 'What did the dentist say yesterday?' });
    expect(yesterday[0]?.id).toBe(latest);
    const followUp = await service.search({
      userId: 'ada',
      query: 'How did it go?',
      recentTurns: ['Thinking back about the dentist in June.'],
    });
    expect(followUp[0]?.id).toBe(june);
  });

  it('prefers the newer of two statements when asked about now', async () => {
    await tell(0, 'Works as a teacher at a primary school');
    const newer = await tell(300, 'Changed careers and now works as a pilot');
    const results = await service.search({ userId: 'ada', query: 'Where do I work now?' });
    expect(results[0]?.id).toBe(newer);
  });
});
