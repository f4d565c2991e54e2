import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MemoryApi } from '@nexus/memory';
import { silentLogger } from '@nexus/protocol';
import { type ScriptedModelServer, startScriptedModelServer } from '@nexus/testkit/llm';
import { type QdrantStandIn, startQdrantStandIn } from '@nexus/testkit/qdrant';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkMemorySearch } from '../../cli/doctor-search-check.ts';
import { loadConfig } from '../../config/load-config.ts';
import { healthMemoryLine, scriptedProviderEnv } from '../../testing/memory-test-support.ts';
import { startTestGateway } from '../../testing/test-gateway.ts';
import { openLocalMemoryService } from './create-gateway-memory.ts';

// A Qdrant collection filled while search was lexical, then a start with NEXUS_EMBEDDING_MODEL
// set: the scripted server's /v1/embeddings (hashed bag-of-words vectors) and the Qdrant stand-in.
let dataDir: string;
let qdrant: QdrantStandIn;
let server: ScriptedModelServer | undefined;
const opened: Array<{ close(): Promise<void> }> = [];
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'nexus-qdrant-reindex-'));
  qdrant = await startQdrantStandIn();
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((local) => local.close()));
  await server?.close();
  server = undefined;
  await qdrant.close();
  await rm(dataDir, { recursive: true, force: true });
});

const qdrantEnv = () => ({ NEXUS_QDRANT_URL: qdrant.url, NEXUS_QDRANT_COLLECTION: 'nexus' });
const embedderEnv = { NEXUS_EMBEDDING_MODEL: 'nomic-embed-text', NEXUS_EMBEDDING_DIMENSIONS: '32' };
const configFor = (baseUrl: string, extra: Record<string, string> = {}) =>
  loadConfig({
    env: {
      ...scriptedProviderEnv(dataDir, baseUrl),
      ...qdrantEnv(),
      ...extra,
    },
  });

/** Words no other memory shares, so near-duplicate detection keeps every one. */
const fact = (index: number) => `fact ${index.toString(36)}x ${(index * 7919).toString(36)}y`;

async function seedLexicalCollection(people: Record<string, number>): Promise<void> {
  const lexical = await openLocalMemoryService({
    config: configFor('http://127.0.0.1:9/v1', { NEXUS_EMBEDDING_AUTO: 'false' }),
    logger: silentLogger,
  });
  try {
    for (const [userId, count] of Object.entries(people))
      for (let index = 0; index < count; index++)
        await lexical.service.add({ userId, content: `${userId} ${fact(index)}` });
  } finally {
    await lexical.close();
  }
}

async function openReindexing(options: { firstRetryDelayMs?: number } = {}) {
  const local = await openLocalMemoryService({
    config: configFor(server!.baseUrl, embedderEnv),
    logger: silentLogger,
    backgroundReindex: true,
    reindexTuning: { batchSize: 10, progressEveryMs: 0, maxRetryDelayMs: 200, ...options },
  });
  opened.push(local);
  return local;
}

const searchState = async (service: MemoryApi) => {
  const { search, reason } = await service.health();
  return `${search}: ${reason}`;
};
const embeddedTexts = () =>
  server!.requests
    .filter((request) => request.path === '/v1/embeddings')
    .flatMap((request) => (request.body as { input: string[] }).input);
/** The re-index's copy in the stand-in (`nexus--<hash>`), once created. */
const copyCollection = () => [...qdrant.collections].find(([name]) => name.startsWith('nexus--'))?.[1];
const copiedOf = (userId: string) =>
  [...(copyCollection()?.points.values() ?? [])].filter((point) => point.payload.userId === userId);

describe('a change of embedder re-indexes a Qdrant collection in the background', () => {
  it('stays lexical with progress, follows what is told, deleted and forgotten meanwhile, then turns hybrid without a restart', async () => {
    await seedLexicalCollection({ ada: 100, bob: 40, carl: 20 });
    // Each embed call takes 30 ms: fourteen batches, long enough to be seen running.
    server = await startScriptedModelServer({ embeddingDimensions: 32, latencyMs: 30 });
    const { service } = await openReindexing();

    await expect
      .poll(() => searchState(service), { timeout: 10_000, interval: 5 })
      .toMatch(
        /^lexical: re-indexing for openai-compatible:nomic-embed-text \(32 dimensions\): ([1-9]\d?)\/160$/u,
      );
    // A search during the re-index answers from BM25 and asks the embedder nothing.
    const before = embeddedTexts().length;
    expect((await service.search({ userId: 'ada', query: fact(77) }))[0]?.content).toBe(`ada ${fact(77)}`);
    expect(embeddedTexts().slice(before)).not.toContain(fact(77));

    // Written while the copy runs, once it holds some memories of each person: one of ada's
    // memories already copied is deleted, bob is forgotten, and ada tells something new.
    await expect.poll(() => ['ada', 'bob', 'carl'].every((userId) => copiedOf(userId).length > 0)).toBe(true);
    const deletedId = String(copiedOf('ada')[0]!.id);
    expect(await service.delete({ userId: 'ada', id: deletedId })).toEqual({ deleted: true });
    expect(await service.reset({ userId: 'bob' })).toEqual({ deleted: 40 });
    await service.add({ userId: 'ada', content: 'Moved to Lisbon in spring' });
    // Another process (`nexus users forget` beside an in-process gateway) forgets carl: it uses
    // the collection as it is and leaves the re-index to the gateway.
    const other = await openLocalMemoryService({
      config: configFor(server.baseUrl, embedderEnv),
      logger: silentLogger,
      backgroundReindex: true,
      reindexElsewhere: true,
    });
    expect(await searchState(other.service)).toMatch(/^lexical: .*the store's 1\d\d memories are lexical$/u);
    expect(await other.service.reset({ userId: 'carl' })).toEqual({ deleted: 20 });
    await other.close();
    expect(await searchState(service)).toMatch(/^lexical: re-indexing/u);

    await expect
      .poll(() => searchState(service), { timeout: 20_000, interval: 20 })
      .toBe('hybrid: NEXUS_EMBEDDING_MODEL is set');
    expect((await service.health()).embedder).toContain('nomic-embed-text');
    // The configured name is now an alias of the copy, which holds exactly the live memories.
    expect([...qdrant.collections.keys()]).toEqual([expect.stringMatching(/^nexus--/u)]);
    const stats = await service.stats({});
    expect(stats.totalMemories).toBe(100);
    expect(stats.users.map((user) => user.userId)).toEqual(['ada']);
    expect(await service.get({ userId: 'ada', id: deletedId })).toBeUndefined();
    expect(await service.list({ userId: 'bob', limit: 10 })).toEqual([]);
    expect(copiedOf('bob')).toEqual([]);
    // Every point has a vector of the new model, the memory told meanwhile too.
    const points = [...copyCollection()!.points.values()];
    expect(points.filter((point) => Array.isArray(point.vectors.dense))).toHaveLength(100);
    // Now the query itself is embedded: search is hybrid.
    const queried = embeddedTexts().length;
    const lisbon = await service.search({ userId: 'ada', query: 'Lisbon' });
    expect(lisbon[0]?.content).toBe('Moved to Lisbon in spring');
    expect(embeddedTexts().length).toBe(queried + 1);
  });

  it('keeps search lexical through a failing embeddings endpoint, loses nothing, and finishes once it answers', async () => {
    await seedLexicalCollection({ ada: 60 });
    server = await startScriptedModelServer({ embeddingDimensions: 32, latencyMs: 20 });
    const { service } = await openReindexing({ firstRetryDelayMs: 50 });
    await expect
      .poll(() => searchState(service), { timeout: 10_000, interval: 5 })
      .toMatch(/: [1-9]\d?\/60$/u);
    server.setEmbeddingFailure(503);

    await expect
      .poll(() => searchState(service), { timeout: 10_000, interval: 20 })
      .toMatch(/^lexical: re-indexing for .*: \d+\/60 \(paused: .*overloaded.*; retrying in \d+ s\)$/u);
    expect((await service.search({ userId: 'ada', query: fact(42) }))[0]?.content).toBe(`ada ${fact(42)}`);
    // Told while paused: kept, and carried over once it resumes.
    await service.add({ userId: 'ada', content: 'Moved to Lisbon in spring' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await searchState(service)).toMatch(/^lexical: re-indexing/u);
    expect(qdrant.collections.has('nexus')).toBe(true);

    server.setEmbeddingFailure(undefined);
    await expect.poll(() => searchState(service), { timeout: 20_000, interval: 20 }).toMatch(/^hybrid: /u);
    expect((await service.stats({ userId: 'ada' })).totalMemories).toBe(61);
    expect((await service.search({ userId: 'ada', query: 'Lisbon' }))[0]?.content).toBe(
      'Moved to Lisbon in spring',
    );
  });

  it('stops on close and resumes from the points copied on the next start; nexus doctor says how far it got', async () => {
    await seedLexicalCollection({ ada: 80 });
    server = await startScriptedModelServer({ embeddingDimensions: 32, latencyMs: 20 });
    const first = await openReindexing();
    await expect
      .poll(() => searchState(first.service), { timeout: 10_000, interval: 5 })
      .toMatch(/: (3\d|4\d)\/80$/u);
    await first.close();
    expect(qdrant.collections.has('nexus')).toBe(true);
    const doctor = await checkMemorySearch(configFor(server.baseUrl, embedderEnv), fetch);
    expect(doctor).toMatchObject({ status: 'warn' });
    expect(doctor.message).toMatch(
      /^lexical \(BM25\) until the Qdrant collection is re-indexed for nomic-embed-text \(32 dimensions\): (3\d|4\d|5\d)\/80 copied/u,
    );
    const embeddedBefore = embeddedTexts().length;

    server.reset();
    const second = await openReindexing();
    await expect
      .poll(() => searchState(second.service), { timeout: 20_000, interval: 20 })
      .toMatch(/^hybrid: /u);
    // Only what was not copied yet is embedded again (plus the odd batch in flight at the stop).
    expect(embeddedTexts().length).toBeLessThan(80 - 20);
    expect(embeddedBefore + embeddedTexts().length).toBeLessThanOrEqual(80 + 10);
    expect((await second.service.stats({ userId: 'ada' })).totalMemories).toBe(80);
    expect(await checkMemorySearch(configFor(server.baseUrl, embedderEnv), fetch)).toMatchObject({
      status: 'ok',
      message: expect.stringMatching(/^semantic \(hybrid with BM25\)/u),
    });
  });

  it("shows it in the gateway's /health: lexical with the reason while it runs, hybrid after", async () => {
    await seedLexicalCollection({ ada: 200 });
    // The gateway's own batch size (64): four embed calls of 400 ms each.
    server = await startScriptedModelServer({ embeddingDimensions: 32, latencyMs: 400 });
    const gateway = await startTestGateway({
      dataDir,
      modelBaseUrl: server.baseUrl,
      env: { ...qdrantEnv(), ...embedderEnv },
    });
    opened.push({ close: () => gateway.dispose() });
    const memoryLine = () => healthMemoryLine(gateway.url);
    await expect
      .poll(memoryLine, { timeout: 10_000, interval: 50 })
      .toMatch(/^lexical: re-indexing for .*nomic-embed-text \(32 dimensions\)/u);
    await expect.poll(memoryLine, { timeout: 20_000, interval: 100 }).toMatch(/^hybrid: /u);
  });

  it('opens an empty lexical collection on the embedder after a re-index of a few requests', async () => {
    await seedLexicalCollection({});
    expect(qdrant.collections.get('nexus')?.dense.size).toBe(0);
    server = await startScriptedModelServer({ embeddingDimensions: 32 });
    const { service } = await openReindexing();
    await expect.poll(() => searchState(service), { timeout: 10_000, interval: 5 }).toMatch(/^hybrid: /u);
    await service.add({ userId: 'ada', content: 'Moved to Lisbon in spring' });
    expect(copiedOf('ada').map((point) => Array.isArray(point.vectors.dense))).toEqual([true]);
  });
});
