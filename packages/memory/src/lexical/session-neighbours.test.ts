import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryService } from '../service/memory-service.ts';
import { createSqliteMemoryStore, type SqliteMemoryStore } from '../sqlite/sqlite-memory-store.ts';
import { seededRandom } from '../testing/seeded-random.ts';
import { PersonLexicalIndex } from './person-lexical-index.ts';
import { SessionNeighbours } from './session-neighbours.ts';

/** A fixed clock: scores include recency, and a search compared with an earlier one must not age. */
const NOW = Date.UTC(2025, 5, 1);

/** Other conversations of the person: BM25 needs a realistic collection for its word weights. */
const OTHER_SESSION = [
  'Ada: I watched a film about whales last night',
  'Bo: Was it the one narrated by the old actor?',
  'Ada: Yes, and the music was lovely',
  'Bo: I bought new running shoes for the race',
  'Ada: Which race are you training for?',
  'Bo: The harbour ten kilometres in June',
];

/** A conversation whose answer is told in context: the turn that says it names nothing asked. */
const POTTERY_SESSION = [
  'Ada: I finally went to that pottery workshop on Saturday',
  'Bo: Oh nice, how did it go?',
  'Ada: It came out as a wobbly blue bowl, I love it',
  'Bo: You should put flowers in it',
];

describe('session neighbours in search (MemoryService on SQLite)', () => {
  let directory: string;
  let store: SqliteMemoryStore;
  let service: MemoryService;
  const open = () => {
    store = createSqliteMemoryStore({ path: join(directory, 'memory.db') });
    service = new MemoryService({ store, now: () => NOW });
  };
  const tell = async (userId: string, sessionId: string | undefined, lines: readonly string[]) => {
    const ids: string[] = [];
    for (const content of lines) {
      const added = await service.add({ userId, content, ...(sessionId ? { sessionId } : {}) });
      ids.push(added.memory.id);
    }
    return ids;
  };
  const found = async (userId: string, query: string) =>
    (await service.search({ userId, query, limit: 10 })).map((hit) => hit.id);

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'nexus-neighbours-'));
    open();
  });
  afterEach(async () => {
    await store.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('finds a memory through its session neighbours, and not when it stands alone', async () => {
    await tell('ada', 'films', OTHER_SESSION);
    const [workshop, , bowl] = await tell('ada', 'pottery', POTTERY_SESSION);
    const hits = await found('ada', 'Was the pottery workshop any good?');
    expect(hits[0]).toBe(workshop);
    expect(hits).toContain(bowl);
    // The same words told without a session: the bowl shares no word with the question.
    await tell('cy', undefined, [...OTHER_SESSION, ...POTTERY_SESSION]);
    const alone = await service.search({ userId: 'cy', query: 'Was the pottery workshop any good?' });
    expect(alone.map((hit) => hit.content)).not.toContain(POTTERY_SESSION[2]);
    // The index built from the file after a restart links the same neighbours.
    await store.close();
    open();
    expect(await found('ada', 'Was the pottery workshop any good?')).toEqual(hits);
  });

  it("never moves one person's ranking with another person's memories or sessions", async () => {
    await tell('ada', 'films', OTHER_SESSION);
    await tell('ada', 'pottery', POTTERY_SESSION);
    const query = 'Was the pottery workshop any good?';
    const before = await service.search({ userId: 'ada', query, limit: 10 });
    // Another person says the same words, often, in sessions with the same ids.
    await tell('bo', 'pottery', [
      'Bo: pottery workshop pottery workshop',
      'Bo: the workshop turned out fine',
      ...POTTERY_SESSION,
    ]);
    await tell('bo', 'films', ['Bo: my pottery bowl cracked in the kiln', 'Bo: another workshop next week']);
    expect(await service.search({ userId: 'ada', query, limit: 10 })).toEqual(before);
    await store.close();
    open();
    expect(await service.search({ userId: 'ada', query, limit: 10 })).toEqual(before);
  });

  it('a deleted or forgotten memory no longer lends its words to its neighbours', async () => {
    await tell('ada', 'films', OTHER_SESSION);
    const [workshop, , bowl] = await tell('ada', 'pottery', POTTERY_SESSION);
    expect(await found('ada', 'pottery workshop')).toContain(bowl);
    await service.delete({ userId: 'ada', id: workshop as string });
    expect(await found('ada', 'pottery workshop')).toEqual([]);
    // Rebuilt from the file: the deleted memory's links went with it.
    await store.close();
    open();
    expect(await found('ada', 'pottery workshop')).toEqual([]);

    // Edited: the memory's new words are lent, its old ones no longer.
    const [first, , third] = await tell('cy', 'pottery', POTTERY_SESSION);
    await service.update({
      userId: 'cy',
      id: first as string,
      content: 'Cy: I finally went to that glass class',
    });
    expect(await found('cy', 'pottery workshop')).toEqual([]);
    expect(await found('cy', 'glass class')).toContain(third);

    // Forgotten (reset) and told again in a new session: none of the old turns lend anything.
    await service.reset({ userId: 'cy' });
    const [again] = await tell('cy', 'later', ['Cy: the bowl is on the shelf now']);
    expect(await found('cy', 'pottery workshop')).toEqual([]);
    expect(await found('cy', 'bowl')).toEqual([again]);
  });
});

describe('SessionNeighbours', () => {
  it('orders each session by rowid, gives two neighbours each side at halving weights, and forgets the unlinked', () => {
    const neighbours = new SessionNeighbours();
    for (const rowid of [10, 30, 20, 40, 50]) neighbours.link(rowid, 's');
    neighbours.link(30, 's');
    neighbours.link(30, 't');
    neighbours.link(99, 't');
    const of = (rowid: number) => {
      const seen: Array<[number, number]> = [];
      neighbours.forEachNeighbour(rowid, (neighbour, weight) => seen.push([neighbour, weight]));
      return seen;
    };
    expect(of(30)).toEqual([
      [20, 0.5],
      [40, 0.5],
      [10, 0.25],
      [50, 0.25],
      [99, 0.5],
    ]);
    neighbours.unlink(40);
    expect(of(30)).toEqual([
      [20, 0.5],
      [50, 0.5],
      [10, 0.25],
      [99, 0.5],
    ]);
    expect(of(40)).toEqual([]);
    expect(neighbours.linkedCount).toBe(5);
  });
});

describe('PersonLexicalIndex with session neighbours', () => {
  it('ranks the same after random links, re-stores and removals as an index built from the end state', () => {
    const random = seededRandom(40);
    const words = ['pottery', 'bowl', 'glaze', 'kiln', 'tea', 'harbour', 'run', 'race', 'film', 'whale'];
    const text = () =>
      Array.from(
        { length: 1 + Math.floor(random() * 5) },
        () => words[Math.floor(random() * words.length)],
      ).join(' ');
    const live = new Map<number, { scope: string; content: string; sessions: Set<string> }>();
    const incremental = new PersonLexicalIndex();
    let next = 1;
    for (let step = 0; step < 600; step += 1) {
      const roll = random();
      const known = [...live.keys()];
      const some = known[Math.floor(random() * known.length)];
      const session = `s${Math.floor(random() * 6)}`;
      if (roll < 0.45 || some === undefined) {
        const rowid = next++;
        const memory = {
          scope: random() < 0.8 ? 'user' : 'session',
          content: text(),
          sessions: new Set<string>(),
        };
        live.set(rowid, memory);
        // As the store does: the link first, then the text, in one commit.
        if (random() < 0.8) {
          memory.sessions.add(session);
          incremental.link(rowid, session);
        }
        incremental.upsert(rowid, memory.scope, memory.content);
      } else if (roll < 0.65) {
        live.get(some)?.sessions.add(session);
        incremental.link(some, session);
      } else if (roll < 0.8) {
        const memory = live.get(some);
        if (!memory) continue;
        memory.content = text();
        incremental.upsert(some, memory.scope, memory.content);
      } else {
        live.delete(some);
        incremental.remove(some);
      }
    }
    const rebuilt = new PersonLexicalIndex();
    for (const [rowid, memory] of live) rebuilt.upsert(rowid, memory.scope, memory.content);
    for (const [rowid, memory] of live) for (const session of memory.sessions) rebuilt.link(rowid, session);
    for (let query = 0; query < 50; query += 1) {
      const parts = [{ terms: text().split(' '), weight: 1 }];
      const scopes = query % 3 === 0 ? ['user'] : undefined;
      const expected = rebuilt.rank(parts, 20, scopes);
      const actual = incremental.rank(parts, 20, scopes);
      expect(actual.map((hit) => hit.rowid)).toEqual(expected.map((hit) => hit.rowid));
      for (const [index, hit] of actual.entries())
        expect(hit.score).toBeCloseTo(expected[index]?.score ?? 0, 9);
    }
  });
});
