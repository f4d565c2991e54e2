import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { approximateTokenCounter } from '@nexus/limits-kit';
import { getLoadablePath } from 'sqlite-vec';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { contentHash } from '../model/content-hash.ts';
import { GLOBAL_USER_ID } from '../model/memory.ts';
import type { MemoryStore } from '../model/memory-store.ts';
import { MemoryService } from '../service/memory-service.ts';
import { createHashedEmbedder } from '../testing/hashed-embedder.ts';
import { createSqliteMemoryStore } from './sqlite-memory-store.ts';
import { SQLITE_TABLES } from './sqlite-schema.ts';

const embedder = createHashedEmbedder({ dimensions: 16 });
const vectors = { embedderId: embedder.id, dimensions: 16 };
const NOW = Date.UTC(2026, 2, 1);

/** Writes a file the way schema version 1 did: one person token per FTS row, cosine vec0 table. */
async function writeVersion1(
  path: string,
  rows: Array<{ userId: string; content: string; sessionId?: string }>,
) {
  const database = new DatabaseSync(path, { allowExtension: true });
  database.loadExtension(getLoadablePath());
  database.exec(SQLITE_TABLES);
  database.exec(`CREATE VIRTUAL TABLE memories_fts USING fts5 (user_key, content, content = '',
    contentless_delete = 1, tokenize = 'porter unicode61 remove_diacritics 2')`);
  database.exec(`CREATE VIRTUAL TABLE memories_vec USING vec0 (user_id TEXT PARTITION KEY, scope TEXT,
    embedding FLOAT[16] distance_metric=cosine)`);
  database.prepare("INSERT INTO meta (key, value) VALUES ('vector_space', ?)").run(JSON.stringify(vectors));
  const embeddings = await embedder.embed({ texts: rows.map((row) => row.content) });
  rows.forEach((row, index) => {
    const scope = row.userId === GLOBAL_USER_ID ? 'global' : 'user';
    const { lastInsertRowid } = database
      .prepare(
        `INSERT INTO memories (id, user_id, scope, session_id, content, category, source, created_at, updated_at,
           last_used_at, hash, metadata) VALUES (?, ?, ?, ?, ?, 'fact', 'inferred', ?, ?, NULL, ?, '{}')`,
      )
      .run(
        randomUUID(),
        row.userId,
        scope,
        row.sessionId ?? null,
        row.content,
        NOW,
        NOW,
        contentHash(row.content),
      );
    const userKey = `u${Buffer.from(row.userId, 'utf8').toString('hex')}x`;
    database
      .prepare('INSERT INTO memories_fts (rowid, user_key, content) VALUES (?, ?, ?)')
      .run(lastInsertRowid, userKey, row.content);
    // Version 1 stored the embedder's vectors as given (here scaled, to prove they are normalised).
    const scaled = (embeddings[index] ?? new Float32Array(16)).map((value) => value * 3);
    database
      .prepare('INSERT INTO memories_vec (rowid, user_id, scope, embedding) VALUES (?, ?, ?, ?)')
      .run(BigInt(lastInsertRowid), row.userId, scope, new Uint8Array(scaled.buffer));
    if (row.sessionId) {
      database
        .prepare('INSERT INTO session_links (session_id, memory_rowid, user_id) VALUES (?, ?, ?)')
        .run(row.sessionId, lastInsertRowid, row.userId);
    }
  });
  database.close();
}

describe('SQLite memory store: opening a schema version 1 file', () => {
  let directory: string;
  let store: MemoryStore | undefined;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'nexus-memory-migration-'));
  });
  afterEach(async () => {
    await store?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('rebuilds the FTS5 and vector indexes and keeps every memory, link and vector searchable', async () => {
    const path = join(directory, 'memory.sqlite');
    await writeVersion1(path, [
      { userId: 'ada', content: 'Allergic to peanuts and cashews' },
      { userId: 'ada', content: 'Is planning a trip to Kyoto', sessionId: 'trip' },
      { userId: 'bob', content: 'Allergic to peanuts' },
      { userId: GLOBAL_USER_ID, content: 'The assistant is called Nexus' },
    ]);
    store = createSqliteMemoryStore({ path, vectors });
    const service = new MemoryService({
      store,
      embedder,
      now: () => NOW,
      tokenCounter: approximateTokenCounter,
    });
    const found = await service.search({ userId: 'ada', query: 'peanuts allergy' });
    expect(found[0]?.content).toBe('Allergic to peanuts and cashews');
    expect(found.every((result) => result.content !== 'Allergic to peanuts')).toBe(true);
    // The stored vector was normalised: the same text is its own nearest neighbour at similarity 1.
    const [query] = await embedder.embed({ texts: ['Is planning a trip to Kyoto'] });
    const [nearest] = await store.nearest({
      userId: 'ada',
      embedding: query ?? new Float32Array(16),
      limit: 1,
    });
    expect(nearest?.memory.content).toBe('Is planning a trip to Kyoto');
    expect(nearest?.similarity).toBeCloseTo(1, 5);
    const context = await service.context({ userId: 'ada', query: 'Kyoto Nexus trip', sessionId: 'trip' });
    expect(context.scopes.session.candidates).toBe(1);
    expect(context.context).toContain('Is planning a trip to Kyoto');
    expect(context.context).toContain('The assistant is called Nexus');
    await store.close();
    // Reopening does not rebuild again and finds the same.
    store = createSqliteMemoryStore({ path, vectors });
    const reopened = new MemoryService({
      store,
      embedder,
      now: () => NOW,
      tokenCounter: approximateTokenCounter,
    });
    expect(
      (await reopened.search({ userId: 'bob', query: 'peanuts' })).map((result) => result.content),
    ).toEqual(['Allergic to peanuts']);
    const database = new DatabaseSync(path, { readOnly: true });
    expect(database.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get()).toEqual({
      value: '3',
    });
    expect(database.prepare('SELECT count(*) AS count FROM memory_vectors').get()).toEqual({ count: 4 });
    database.close();
  });

  it('refuses a file written by a newer schema', async () => {
    const path = join(directory, 'memory.sqlite');
    createSqliteMemoryStore({ path }).close();
    const database = new DatabaseSync(path);
    database.prepare("UPDATE meta SET value = '99' WHERE key = 'schema_version'").run();
    database.close();
    expect(() => createSqliteMemoryStore({ path })).toThrow(/prepare the memory store/u);
  });
});

describe('SQLite memory store: opening a schema version 2 file', () => {
  let directory: string;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'nexus-memory-migration-'));
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it('copies every vector into the plain table and the quantised path answers as the exact scan did', async () => {
    const path = join(directory, 'memory.sqlite');
    const contents = Array.from(
      { length: 300 },
      (_, index) => `Likes ${['tea', 'jazz', 'trains', 'kyoto', 'chess'][index % 5]} number ${index}`,
    );
    const writer = createSqliteMemoryStore({ path, vectors, vectorCache: false });
    const embeddings = await embedder.embed({ texts: contents });
    await writer.insertMany({
      items: contents.map((content, index) => ({
        memory: {
          id: randomUUID(),
          userId: 'ada',
          scope: 'user' as const,
          content,
          category: 'fact' as const,
          source: 'inferred' as const,
          createdAt: NOW - index,
          updatedAt: NOW - index,
          hash: contentHash(content),
          metadata: {},
        },
        embedding: embeddings[index],
      })),
    });
    const query = { userId: 'ada', text: 'jazz kyoto', embedding: embeddings[1], limit: 40 };
    const before = await writer.search(query);
    await writer.close();
    // A schema 2 file is this layout without the plain copy of the vectors.
    const database = new DatabaseSync(path);
    database.exec("DROP TABLE memory_vectors; UPDATE meta SET value = '2' WHERE key = 'schema_version'");
    database.close();

    const store = createSqliteMemoryStore({ path, vectors, vectorCache: { minVectors: 1 } });
    try {
      expect(await store.search(query)).toEqual(before);
      expect((await store.stats({ userId: 'ada' })).totalMemories).toBe(300);
    } finally {
      await store.close();
    }
    const reopened = new DatabaseSync(path, { readOnly: true });
    expect(reopened.prepare('SELECT count(*) AS count FROM memory_vectors').get()).toEqual({ count: 300 });
    expect(reopened.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get()).toEqual({
      value: '3',
    });
    reopened.close();
  });
});
