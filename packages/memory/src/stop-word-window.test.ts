import { afterEach, describe, expect, it } from 'vitest';
import { STOP_WORD_WINDOW } from './conversation-query.ts';
import { MemoryService } from './memory-service.ts';
import type { MemoryStore } from './memory-store.ts';
import { createSqliteMemoryStore } from './sqlite-memory-store.ts';

// Stop words search only a person's newest STOP_WORD_WINDOW memories, so a turn's lexical work
// does not grow with everything the person ever said; content words still search every memory.
describe('the stop-word window (MemoryService on SQLite)', () => {
  let store: MemoryStore | undefined;
  afterEach(async () => {
    await store?.close();
  });

  it('finds an old memory by a content word, and by stop words only within the newest window', async () => {
    store = createSqliteMemoryStore({ path: ':memory:' });
    let clock = Date.UTC(2025, 0, 1);
    const service = new MemoryService({ store, now: () => clock, lexicalDuplicateThreshold: 2 });
    const add = async (content: string) => {
      clock += 1000;
      return (await service.add({ userId: 'ada', content })).memory.id;
    };
    // Only stop words in common with the question below: "what", "do", "you", "there".
    const oldStopWordsOnly = await add('What do you keep there');
    const oldContentWord = await add('Keeps a violin under the stairs');
    for (let index = 0; index < STOP_WORD_WINDOW; index += 1) await add(`Filler note number ${index}`);
    const newStopWordsOnly = await add('What do you think is there');

    const ids = (await service.search({ userId: 'ada', query: 'what do you have there?', limit: 50 })).map(
      (hit) => hit.id,
    );
    expect(ids).toContain(newStopWordsOnly);
    expect(ids).not.toContain(oldStopWordsOnly);
    const violin = await service.search({ userId: 'ada', query: 'where is my violin?', limit: 5 });
    expect(violin.map((hit) => hit.id)).toContain(oldContentWord);
  });
});
