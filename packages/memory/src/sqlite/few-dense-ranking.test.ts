import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentHash } from '../model/content-hash.ts';
import type { Memory, MemoryScope } from '../model/memory.ts';
import { createHashedEmbedder } from '../testing/hashed-embedder.ts';
import { seededRandom } from '../testing/seeded-random.ts';
import { openMemoryDatabase } from './open-memory-database.ts';
import { createSqliteMemoryStore } from './sqlite-memory-store.ts';
import { unitVectorBytes } from './sqlite-schema.ts';
import { denseRanking, type SearchPartition, sessionLinks } from './sqlite-search.ts';

const embedder = createHashedEmbedder({ dimensions: 16 });
const vectors = { embedderId: embedder.id, dimensions: 16 };
// Few words, so that many memories share a vector: ties at the cut are the hard case.
const WORDS = 'tea jazz kyoto piano'.split(' ');
const SCOPES: MemoryScope[] = ['user', 'session', 'global'];

function memoryOf(userId: string, content: string, scope: MemoryScope, sessionId?: string): Memory {
  return {
    id: randomUUID(),
    userId,
    scope,
    content,
    category: 'fact',
    source: 'inferred',
    createdAt: 1,
    updatedAt: 1,
    hash: contentHash(content),
    metadata: {},
    ...(sessionId ? { sessionId } : {}),
  };
}

describe('dense ranking of a person with few memories', () => {
  const directory = mkdtempSync(join(tmpdir(), 'nexus-few-dense-'));
  const path = join(directory, 'memory.db');
  let database: DatabaseSync;
  const prepared = new Map<string, StatementSync>();
  const statements = (sql: string) => {
    let statement = prepared.get(sql);
    if (!statement) {
      statement = database.prepare(sql);
      prepared.set(sql, statement);
    }
    return statement;
  };
  const people = Array.from({ length: 16 }, (_, index) => `person-${index + 1}`);

  beforeAll(async () => {
    const store = createSqliteMemoryStore({ path, vectors });
    const random = seededRandom(11);
    for (const [index, userId] of people.entries()) {
      for (let told = 0; told <= index; told += 1) {
        const words = Array.from({ length: 2 }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' ');
        const scope = SCOPES[Math.floor(random() * SCOPES.length)]!;
        const [embedding] = await embedder.embed({ texts: [words] });
        await store.insert({ memory: memoryOf(userId, `${words}`, scope, 'chat'), embedding });
      }
    }
    await store.close();
    database = openMemoryDatabase({ path, vectors }).database;
  });
  afterAll(() => {
    database.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('names the same memories in the same order with the same scores as sqlite-vec’s KNN', async () => {
    const [query] = await embedder.embed({ texts: ['jazz tea'] });
    const bytes = unitVectorBytes(query!)!;
    let compared = 0;
    for (const userId of people)
      for (const scopes of [undefined, ['user'], ['session', 'global'], []] as const)
        for (const limit of [1, 2, 3, 5, 40]) {
          const partition: SearchPartition = { userId, scopes };
          const few = denseRanking(statements, partition, bytes, limit, undefined, undefined, true);
          const knn = denseRanking(statements, partition, bytes, limit);
          expect(few).toEqual(knn);
          compared += few.length;
        }
    expect(compared).toBeGreaterThan(500);
  });

  it('is not compiled again on every run (no join, no bound LIMIT)', async () => {
    const [query] = await embedder.embed({ texts: ['kyoto'] });
    const bytes = unitVectorBytes(query!)!;
    const partition: SearchPartition = { userId: 'person-9', scopes: ['user'], sessionId: undefined };
    const run = () => {
      denseRanking(statements, partition, bytes, 5, undefined, undefined, true);
      sessionLinks(statements, { userId: 'person-9', sessionId: 'chat' });
      sessionLinks(statements, { userId: 'person-9', sessionId: 'chat', scopes: ['user'] });
    };
    run();
    // The authorizer is asked while a statement is compiled, never while it runs.
    let compiled = 0;
    database.setAuthorizer(() => {
      compiled += 1;
      return 0;
    });
    try {
      run();
      compiled = 0;
      for (let index = 0; index < 5; index += 1) run();
      expect(compiled).toBe(0);
    } finally {
      database.setAuthorizer(null);
    }
  });
});

describe('sessionLinks', () => {
  it('leaves out a link whose memory is another person’s, or in another scope than asked', async () => {
    const [embedding] = await embedder.embed({ texts: ['tea'] });
    const mine = memoryOf('ada', 'tea at five', 'user', 'chat');
    const hers = memoryOf('bea', 'jazz on friday', 'user', 'elsewhere');
    const sessionNote = memoryOf('ada', 'kyoto trip', 'session', 'chat');
    // Through a file, so that a broken link (a row naming the wrong person) can be written.
    const directory = mkdtempSync(join(tmpdir(), 'nexus-links-'));
    const path = join(directory, 'memory.db');
    const fileStore = createSqliteMemoryStore({ path, vectors });
    for (const memory of [mine, hers, sessionNote]) await fileStore.insert({ memory, embedding });
    await fileStore.close();
    const { database } = openMemoryDatabase({ path, vectors });
    try {
      const rowidOf = (id: string) =>
        (database.prepare('SELECT rowid FROM memories WHERE id = ?').get(id) as { rowid: number }).rowid;
      database
        .prepare('INSERT INTO session_links (session_id, memory_rowid, user_id) VALUES (?, ?, ?)')
        .run('chat', rowidOf(hers.id), 'ada');
      const statements = (sql: string) => database.prepare(sql);
      expect(sessionLinks(statements, { userId: 'ada', sessionId: 'chat' }).sort()).toEqual(
        [rowidOf(mine.id), rowidOf(sessionNote.id)].sort(),
      );
      expect(sessionLinks(statements, { userId: 'ada', sessionId: 'chat', scopes: ['user'] })).toEqual([
        rowidOf(mine.id),
      ]);
      expect(sessionLinks(statements, { userId: 'ada', sessionId: 'chat', scopes: [] })).toEqual([]);
      expect(sessionLinks(statements, { userId: 'bea', sessionId: 'chat' })).toEqual([]);
      expect(sessionLinks(statements, { userId: 'bea', sessionId: 'elsewhere' })).toEqual([rowidOf(hers.id)]);
    } finally {
      database.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
