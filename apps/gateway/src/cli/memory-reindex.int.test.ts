import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  contentHash,
  createOpenAICompatibleEmbedder,
  createSqliteMemoryStore,
  type Embedder,
  EmbedderMismatchError,
  type Memory,
  MemoryService,
} from '@nexus/memory';
import { createHashedEmbedder } from '@nexus/memory/testing';
import { openQdrantMemoryStore } from '@nexus/memory-qdrant';
import { type ScriptedModelServer, startScriptedModelServer } from '@nexus/testkit/llm';
import { startQdrantStandIn } from '@nexus/testkit/qdrant';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

const CLI = fileURLToPath(new URL('../cli.ts', import.meta.url));
const old = createHashedEmbedder({ dimensions: 8 });
const spaceOf = (embedder: Embedder) => ({ embedderId: embedder.id, dimensions: embedder.dimensions });

let model: ScriptedModelServer;
let dataDir: string;
let path: string;

function nexus(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { env: { PATH: process.env.PATH ?? '', NEXUS_DATA_DIR: dataDir, ...env }, timeout: 30_000 },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
      },
    );
  });
}

const embeddingEnv = () => ({
  NEXUS_EMBEDDING_MODEL: 'scripted-embedder',
  NEXUS_EMBEDDING_DIMENSIONS: '16',
  NEXUS_EMBEDDING_BASE_URL: model.baseUrl,
});

/** 150 memories of three people on the 8-dimension test embedder. */
async function seedItems() {
  const items = [];
  for (const [userId, topic] of [
    ['ann', 'green tea'],
    ['bob', 'red bicycle'],
    ['cy', 'jazz piano'],
  ] as const) {
    for (let index = 0; index < 50; index++) {
      const content = `${userId} talks about ${topic} item ${index}`;
      const memory: Memory = {
        id: randomUUID(),
        userId,
        scope: 'user',
        content,
        category: 'fact',
        source: 'user_explicit',
        createdAt: Date.now(),
        updatedAt: Date.now(),
        hash: contentHash(content),
        metadata: {},
      };
      items.push({ memory, embedding: (await old.embed({ texts: [content] }))[0]! });
    }
  }
  return items;
}

beforeAll(async () => {
  model = await startScriptedModelServer({ embeddingDimensions: 16 });
});
afterAll(async () => {
  await model.close();
});
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'nexus-reindex-cli-'));
  path = join(dataDir, 'memory.sqlite');
  const store = createSqliteMemoryStore({ path, vectors: spaceOf(old) });
  const items = await seedItems();
  await store.insertMany({ items });
  await store.close();
});
afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe('nexus memory reindex', () => {
  it('moves the store to the configured embedder; the old one is then refused, nothing is lost', async () => {
    const result = await nexus(['memory', 'reindex'], embeddingEnv());
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    // Not a TTY: plain progress lines, one per batch of 64.
    expect(result.stdout).toMatch(/^0\/150$/m);
    expect(result.stdout).toMatch(/^64\/150$/m);
    expect(result.stdout).toMatch(/^150\/150$/m);
    expect(result.stdout).toMatch(
      /Done: 150 memories now on openai-compatible:scripted-embedder \(16 dimensions\)/,
    );
    expect(model.requests.filter((request) => request.path === '/v1/embeddings').length).toBe(3);

    const embedder = createOpenAICompatibleEmbedder({
      baseUrl: model.baseUrl,
      model: 'scripted-embedder',
      dimensions: 16,
    });
    expect(() => createSqliteMemoryStore({ path, vectors: spaceOf(old) })).toThrow(EmbedderMismatchError);
    const store = createSqliteMemoryStore({ path, vectors: spaceOf(embedder) });
    const service = new MemoryService({ store, embedder });
    const stats = await service.stats({});
    expect(stats.totalMemories).toBe(150);
    expect(stats.users.map((user) => [user.userId, user.memories])).toEqual([
      ['ann', 50],
      ['bob', 50],
      ['cy', 50],
    ]);
    const hits = await service.search({ userId: 'bob', query: 'red bicycle item 7' });
    expect(hits.map((hit) => hit.content)).toContain('bob talks about red bicycle item 7');
    expect(hits.every((hit) => hit.content.startsWith('bob '))).toBe(true);
    // The dense channel alone finds it too: the stored vectors are the new model's.
    const [query] = await embedder.embed({ texts: ['bob talks about red bicycle item 7'] });
    const nearest = await store.nearest({ userId: 'bob', embedding: query!, limit: 1 });
    expect(nearest[0]?.similarity).toBeCloseTo(1, 5);
    await store.close();
  });

  it('leaves the store on the old embedder when the embedding endpoint fails', async () => {
    const result = await nexus(['memory', 'reindex'], {
      ...embeddingEnv(),
      NEXUS_EMBEDDING_BASE_URL: 'http://127.0.0.1:9/v1',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /Re-index stopped: .*unreachable[\s\S]*run the same command again to resume/,
    );
    const store = createSqliteMemoryStore({ path, vectors: spaceOf(old) });
    expect((await store.stats()).totalMemories).toBe(150);
    await store.close();
  });

  it('--to none drops the vectors; a store opened with the wrong embedder names the command', async () => {
    const wrong = createHashedEmbedder({ dimensions: 12 });
    expect(() => createSqliteMemoryStore({ path, vectors: spaceOf(wrong) })).toThrow(
      /`nexus memory reindex`/,
    );

    const result = await nexus(['memory', 'reindex', '--to', 'none']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Done: 150 memories now on lexical only \(was hashed-bag-of-words-8/);
    const store = createSqliteMemoryStore({ path });
    expect(store.vectorSpace).toBeUndefined();
    const hits = await new MemoryService({ store }).search({ userId: 'cy', query: 'jazz piano' });
    expect(hits.length).toBeGreaterThan(0);
    await store.close();
  });

  it('refuses without a configured embedder and with a bad --to', async () => {
    const missing = await nexus(['memory', 'reindex']);
    expect(missing.code).toBe(78);
    expect(missing.stderr).toMatch(/NEXUS_EMBEDDING_MODEL.*--to none/);
    const bad = await nexus(['memory', 'reindex', '--to', 'elsewhere']);
    expect(bad.code).toBe(64);
    expect(bad.stderr).toMatch(/nexus memory reindex --to none/);
  });

  it('re-indexes a Qdrant store when NEXUS_QDRANT_URL is set (collection alias switched)', async () => {
    const qdrant = await startQdrantStandIn();
    try {
      const seeded = await openQdrantMemoryStore({
        url: qdrant.url,
        collection: 'nexus',
        vectors: spaceOf(old),
      });
      await seeded.insertMany({ items: await seedItems() });
      const env = { ...embeddingEnv(), NEXUS_QDRANT_URL: qdrant.url, NEXUS_QDRANT_COLLECTION: 'nexus' };
      const result = await nexus(['memory', 'reindex'], env);
      expect(result.stderr).toBe('');
      expect(result.stdout).toMatch(/^150\/150$/m);
      expect(result.stdout).toMatch(/Done: 150 memories now on openai-compatible:scripted-embedder/);
      const embedder = createOpenAICompatibleEmbedder({
        baseUrl: model.baseUrl,
        model: 'scripted-embedder',
        dimensions: 16,
      });
      await expect(
        openQdrantMemoryStore({ url: qdrant.url, collection: 'nexus', vectors: spaceOf(old) }),
      ).rejects.toThrow(/nexus memory reindex/);
      const store = await openQdrantMemoryStore({
        url: qdrant.url,
        collection: 'nexus',
        vectors: spaceOf(embedder),
      });
      const service = new MemoryService({ store, embedder });
      expect((await service.stats({})).totalMemories).toBe(150);
      const hits = await service.search({ userId: 'cy', query: 'jazz piano item 4' });
      expect(hits.map((hit) => hit.content)).toContain('cy talks about jazz piano item 4');
      expect(hits.every((hit) => hit.content.startsWith('cy '))).toBe(true);
    } finally {
      await qdrant.close();
    }
  });
});
