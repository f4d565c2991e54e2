import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MemoryApi } from '@nexus/memory';
import { silentLogger } from '@nexus/protocol';
import { type ScriptedModelServer, startScriptedModelServer } from '@nexus/testkit/llm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkMemorySearch } from '../../cli/doctor-search-check.ts';
import { loadConfig } from '../../config/load-config.ts';
import { healthMemoryLine, scriptedProviderEnv } from '../../testing/memory-test-support.ts';
import { startTestGateway } from '../../testing/test-gateway.ts';
import { openLocalMemoryService } from './create-gateway-memory.ts';

// A store filled while search was lexical, then a start with an embedder at the provider (the
// testkit's scripted server answers /v1/embeddings with hashed bag-of-words vectors).
let dataDir: string;
let server: ScriptedModelServer | undefined;
const opened: Array<{ close(): Promise<void> }> = [];
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'nexus-background-reindex-'));
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((local) => local.close()));
  await server?.close();
  server = undefined;
  await rm(dataDir, { recursive: true, force: true });
});

const configFor = (baseUrl: string, extra: Record<string, string> = {}) =>
  loadConfig({
    env: {
      ...scriptedProviderEnv(dataDir, baseUrl),
      ...extra,
    },
  });

/** Words no other memory shares, so near-duplicate detection keeps every one. */
const fact = (index: number) => `fact ${index.toString(36)}x ${(index * 7919).toString(36)}y`;

async function seedLexicalStore(count: number): Promise<void> {
  const lexical = await openLocalMemoryService({
    config: configFor('http://127.0.0.1:9/v1', { NEXUS_EMBEDDING_AUTO: 'false' }),
    logger: silentLogger,
  });
  try {
    for (let index = 0; index < count; index++)
      await lexical.service.add({ userId: 'ada', content: fact(index) });
  } finally {
    await lexical.close();
  }
}

async function openReindexing(options: { firstRetryDelayMs?: number } = {}) {
  const local = await openLocalMemoryService({
    config: configFor(server!.baseUrl),
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
const embeddingRequests = () =>
  server!.requests.filter((request) => request.path === '/v1/embeddings').length;

describe('a change of embedder re-indexes in the background', () => {
  it('stays lexical with progress while it runs, still answers searches, then turns hybrid without a restart', async () => {
    await seedLexicalStore(120);
    // Each embed call takes 30 ms: twelve batches, long enough to be seen running.
    server = await startScriptedModelServer({ embeddingDimensions: 32, latencyMs: 30 });
    const { service } = await openReindexing();

    await expect
      .poll(() => searchState(service), { timeout: 10_000, interval: 5 })
      .toMatch(/^lexical: re-indexing for .*nomic-embed-text \(32 dimensions\): ([1-9]\d?)\/120$/u);
    // A search during the re-index answers from BM25 and asks the embedder nothing.
    const before = embeddingRequests();
    const hits = await service.search({ userId: 'ada', query: fact(77) });
    expect(hits[0]?.content).toBe(fact(77));
    const queryEmbedded = server.requests
      .slice(before)
      .some(
        (request) =>
          request.path === '/v1/embeddings' &&
          (request.body as { input: string[] }).input.join('|') === fact(77),
      );
    expect(queryEmbedded).toBe(false);
    // Told while it runs: carried over too.
    await service.add({ userId: 'ada', content: 'Moved to Lisbon in spring' });

    await expect
      .poll(() => searchState(service), { timeout: 20_000, interval: 20 })
      .toMatch(/^hybrid: .*nomic-embed-text \(32 dimensions\)/u);
    expect((await service.health()).embedder).toContain('nomic-embed-text');
    expect((await service.stats({ userId: 'ada' })).totalMemories).toBe(121);
    // Now the query itself is embedded: search is hybrid.
    const queried = embeddingRequests();
    const lisbon = await service.search({ userId: 'ada', query: 'Lisbon' });
    expect(lisbon[0]?.content).toBe('Moved to Lisbon in spring');
    expect(embeddingRequests()).toBe(queried + 1);
  });

  it('keeps search lexical through a failing embeddings endpoint, loses nothing, and finishes once it answers', async () => {
    await seedLexicalStore(60);
    server = await startScriptedModelServer({ embeddingDimensions: 32, latencyMs: 20 });
    const { service } = await openReindexing({ firstRetryDelayMs: 50 });
    await expect
      .poll(() => searchState(service), { timeout: 10_000, interval: 5 })
      .toMatch(/: [1-9]\d?\/60$/u);
    server.setEmbeddingFailure(503);

    await expect
      .poll(() => searchState(service), { timeout: 10_000, interval: 20 })
      .toMatch(/^lexical: re-indexing for .*: \d+\/60 \(paused: .*overloaded.*; retrying in \d+ s\)$/u);
    expect((await service.search({ userId: 'ada', query: fact(42) }))[0]?.content).toBe(fact(42));
    expect((await service.stats({ userId: 'ada' })).totalMemories).toBe(60);
    // Still lexical a while later: retrying, never switched to a half-indexed store.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await searchState(service)).toMatch(/^lexical: re-indexing/u);

    server.setEmbeddingFailure(undefined);
    await expect.poll(() => searchState(service), { timeout: 20_000, interval: 20 }).toMatch(/^hybrid: /u);
    expect((await service.stats({ userId: 'ada' })).totalMemories).toBe(60);
    expect((await service.search({ userId: 'ada', query: fact(42) }))[0]?.content).toBe(fact(42));
  });

  it('stops on close and resumes from what it staged on the next start', async () => {
    await seedLexicalStore(80);
    server = await startScriptedModelServer({ embeddingDimensions: 32, latencyMs: 20 });
    const first = await openReindexing();
    await expect
      .poll(() => searchState(first.service), { timeout: 10_000, interval: 5 })
      .toMatch(/: (3\d|4\d)\/80$/u);
    await first.close();
    // `nexus doctor`, which cannot ask the gateway, reads how far it got from the store.
    const doctor = await checkMemorySearch(configFor(server.baseUrl), fetch);
    expect(doctor).toMatchObject({ status: 'warn' });
    expect(doctor.message).toMatch(
      /^lexical \(BM25\) until the store is re-indexed for nomic-embed-text \(32 dimensions\): (3\d|4\d|5\d)\/80 done/u,
    );
    const embeddedBefore = server.requests
      .filter((request) => request.path === '/v1/embeddings')
      .reduce((sum, request) => sum + (request.body as { input: string[] }).input.length, 0);

    server.reset();
    const second = await openReindexing();
    await expect
      .poll(() => searchState(second.service), { timeout: 20_000, interval: 20 })
      .toMatch(/^hybrid: /u);
    const embeddedAfter = server.requests
      .filter((request) => request.path === '/v1/embeddings')
      .reduce((sum, request) => sum + (request.body as { input: string[] }).input.length, 0);
    // Only what was not staged yet is embedded again (plus the probe and the odd batch in flight).
    expect(embeddedAfter).toBeLessThan(80 - 20);
    expect(embeddedBefore + embeddedAfter).toBeLessThanOrEqual(80 + 15);
    expect((await second.service.stats({ userId: 'ada' })).totalMemories).toBe(80);
    expect(await checkMemorySearch(configFor(server.baseUrl), fetch)).toMatchObject({
      status: 'ok',
      message: expect.stringMatching(/^semantic \(hybrid with BM25\)/u),
    });
  });

  it("shows it in the gateway's /health: lexical with the reason while it runs, hybrid after", async () => {
    await seedLexicalStore(200);
    // The gateway's own batch size (64): four embed calls of 400 ms each.
    server = await startScriptedModelServer({ embeddingDimensions: 32, latencyMs: 400 });
    const gateway = await startTestGateway({ dataDir, modelBaseUrl: server.baseUrl });
    opened.push({ close: () => gateway.dispose() });
    const memoryLine = () => healthMemoryLine(gateway.url);
    await expect
      .poll(memoryLine, { timeout: 10_000, interval: 50 })
      .toMatch(/^lexical: re-indexing for .*nomic-embed-text \(32 dimensions\)/u);
    await expect.poll(memoryLine, { timeout: 20_000, interval: 100 }).toMatch(/^hybrid: /u);
  });

  it('embeds only the memories a store on the same embedder holds without a vector', async () => {
    await seedLexicalStore(30);
    server = await startScriptedModelServer({ embeddingDimensions: 32 });
    const explicit = { NEXUS_EMBEDDING_MODEL: 'nomic-embed-text', NEXUS_EMBEDDING_DIMENSIONS: '32' };
    // Opened with an embedder without the background re-index (as `nexus memory` commands do):
    // the store is marked as indexed, its 30 older memories have no vector; a new one has.
    const marking = await openLocalMemoryService({
      config: configFor(server.baseUrl, explicit),
      logger: silentLogger,
    });
    await marking.service.add({ userId: 'ada', content: 'Moved to Lisbon in spring' });
    await marking.close();
    server.reset();

    const local = await openLocalMemoryService({
      config: configFor(server.baseUrl, explicit),
      logger: silentLogger,
      backgroundReindex: true,
      reindexTuning: { batchSize: 10 },
    });
    opened.push(local);
    expect(await searchState(local.service)).toMatch(
      /^lexical: re-indexing for openai-compatible:nomic-embed-text \(32 dimensions\)/u,
    );
    await expect
      .poll(() => searchState(local.service), { timeout: 20_000, interval: 20 })
      .toBe('hybrid: NEXUS_EMBEDDING_MODEL is set');
    const embedded = server.requests
      .filter((request) => request.path === '/v1/embeddings')
      .flatMap((request) => (request.body as { input: string[] }).input);
    expect(embedded).toHaveLength(30);
    expect(embedded).not.toContain('Moved to Lisbon in spring');
    // The memory whose vector was kept is still found through it.
    const hits = await local.service.search({ userId: 'ada', query: 'Lisbon' });
    expect(hits[0]?.content).toBe('Moved to Lisbon in spring');
  });
});
