import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MemoryApi } from '@nexus/memory';
import { silentLogger } from '@nexus/protocol';
import { type ScriptedModelServer, startScriptedModelServer } from '@nexus/testkit/llm';
import { type QdrantStandIn, startQdrantStandIn } from '@nexus/testkit/qdrant';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { doctorCommand } from '../../cli/doctor-command.ts';
import { checkMemorySearch } from '../../cli/doctor-search-check.ts';
import { loadConfig } from '../../config/load-config.ts';
import { healthMemoryLine, scriptedProviderEnv } from '../../testing/memory-test-support.ts';
import { startTestGateway } from '../../testing/test-gateway.ts';
import { openLocalMemoryService } from './create-gateway-memory.ts';

// Qdrant (`NEXUS_QDRANT_URL`, the compose default) with NEXUS_EMBEDDING_MODEL unset: the embedder
// is the one the provider serves, asked at start like on the embedded store. The provider is the
// scripted server (its /v1/embeddings returns hashed bag-of-words vectors), Qdrant the stand-in.
let dataDir: string;
let qdrant: QdrantStandIn;
let server: ScriptedModelServer | undefined;
const opened: Array<{ close(): Promise<void> }> = [];
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'nexus-qdrant-detect-'));
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
/** The environment of a start (gateway, `nexus memory`, `nexus doctor`) in this test. */
const envFor = (baseUrl: string, extra: Record<string, string> = {}) => ({
  ...scriptedProviderEnv(dataDir, baseUrl),
  ...qdrantEnv(),
  ...extra,
});
const configFor = (baseUrl: string, extra: Record<string, string> = {}) =>
  loadConfig({ env: envFor(baseUrl, extra) });

/** Opened the way the gateway and `nexus memory serve` open it (re-index in the background allowed). */
async function openAsGateway(extra: Record<string, string> = {}) {
  const local = await openLocalMemoryService({
    config: configFor(server!.baseUrl, extra),
    logger: silentLogger,
    backgroundReindex: true,
    reindexTuning: { batchSize: 10, progressEveryMs: 0, maxRetryDelayMs: 200 },
  });
  opened.push(local);
  return local;
}

/** Memories told while no embedder was known: a lexical collection (sparse vectors only). */
async function seedLexicalCollection(count: number): Promise<void> {
  const lexical = await openLocalMemoryService({
    config: configFor('http://127.0.0.1:9/v1', { NEXUS_EMBEDDING_AUTO: 'false' }),
    logger: silentLogger,
  });
  try {
    for (let index = 0; index < count; index++)
      await lexical.service.add({
        userId: 'ada',
        content: `ada fact ${index.toString(36)}x ${(index * 7919).toString(36)}y`,
      });
  } finally {
    await lexical.close();
  }
}

const searchState = async (service: MemoryApi) => {
  const { search, reason } = await service.health();
  return `${search}: ${reason}`;
};
const embeddingRequests = () => server!.requests.filter((request) => request.path === '/v1/embeddings');
const denseSize = (name: string) => qdrant.collections.get(name)?.dense.get('dense')?.size;

describe('provider embeddings detected on Qdrant', () => {
  it('creates a new collection on the detected model and searches it hybrid at once', async () => {
    server = await startScriptedModelServer({ embeddingDimensions: 48 });
    // Before the first start, nexus doctor already names the model the start will use.
    expect(await checkMemorySearch(configFor(server.baseUrl), fetch)).toEqual({
      status: 'ok',
      subject: 'memory search',
      message: `semantic (hybrid with BM25): the provider serves nomic-embed-text (48 dimensions) at ${server.baseUrl}/embeddings`,
    });

    const { service } = await openAsGateway();
    expect(await service.health()).toMatchObject({
      search: 'hybrid',
      embedder: 'openai-compatible:nomic-embed-text',
      reason: `the provider serves nomic-embed-text (48 dimensions) at ${server.baseUrl}/embeddings`,
    });
    // The collection was created with a dense vector of the detected length; no re-index copy.
    expect([...qdrant.collections.keys()]).toEqual(['nexus']);
    expect(denseSize('nexus')).toBe(48);
    await service.add({ userId: 'ada', content: 'Lives in Porto with a flatmate' });
    const before = embeddingRequests().length;
    expect((await service.search({ userId: 'ada', query: 'Porto' }))[0]?.content).toBe(
      'Lives in Porto with a flatmate',
    );
    // The query itself was embedded: search really is hybrid.
    expect(embeddingRequests().length).toBe(before + 1);
  });

  it('re-indexes a lexical collection for the detected model in the background, then turns hybrid; the next start opens it hybrid at once', async () => {
    await seedLexicalCollection(60);
    server = await startScriptedModelServer({ embeddingDimensions: 32, latencyMs: 20 });
    const first = await openAsGateway();
    await expect
      .poll(() => searchState(first.service), { timeout: 10_000, interval: 5 })
      .toMatch(
        /^lexical: re-indexing for openai-compatible:nomic-embed-text \(32 dimensions\): ([1-9]\d?)\/60$/u,
      );
    // nexus doctor, meanwhile, says the same from Qdrant alone.
    expect((await checkMemorySearch(configFor(server.baseUrl), fetch)).message).toMatch(
      /^lexical \(BM25\) until the Qdrant collection is re-indexed for nomic-embed-text \(32 dimensions\): \d+\/60 copied/u,
    );
    // A lexical answer meanwhile.
    expect((await first.service.search({ userId: 'ada', query: 'fact 1ax' }))[0]?.content).toMatch(
      /^ada fact 1ax /u,
    );

    await expect
      .poll(() => searchState(first.service), { timeout: 20_000, interval: 20 })
      .toBe(`hybrid: the provider serves nomic-embed-text (32 dimensions) at ${server.baseUrl}/embeddings`);
    const [copy] = [...qdrant.collections.keys()];
    expect(copy).toMatch(/^nexus--/u);
    expect(denseSize(copy!)).toBe(32);
    expect((await first.service.stats({ userId: 'ada' })).totalMemories).toBe(60);
    await first.close();

    const embeddedBefore = embeddingRequests().length;
    const second = await openAsGateway();
    expect(await searchState(second.service)).toBe(
      `hybrid: the provider serves nomic-embed-text (32 dimensions) at ${server.baseUrl}/embeddings`,
    );
    // Only the start's probe: nothing is embedded again.
    expect(embeddingRequests().length).toBe(embeddedBefore + 1);
    expect(await checkMemorySearch(configFor(server.baseUrl), fetch)).toMatchObject({ status: 'ok' });
  });

  it('stays lexical on the collection as it is with NEXUS_MEMORY_AUTO_REINDEX off, naming nexus memory reindex', async () => {
    await seedLexicalCollection(3);
    server = await startScriptedModelServer({ embeddingDimensions: 32 });
    const off = { NEXUS_MEMORY_AUTO_REINDEX: 'false' };
    const { service } = await openAsGateway(off);
    const reason = `the provider serves nomic-embed-text (32 dimensions) at ${server.baseUrl}/embeddings, but the store's 3 memories are lexical: run \`NEXUS_EMBEDDING_MODEL=nomic-embed-text NEXUS_EMBEDDING_DIMENSIONS=32 nexus memory reindex\` to switch`;
    expect(await searchState(service)).toBe(`lexical: ${reason}`);
    expect((await service.search({ userId: 'ada', query: 'fact 1x' }))[0]?.content).toMatch(/^ada fact 1x /u);
    // Nothing copied, nothing switched.
    expect([...qdrant.collections.keys()]).toEqual(['nexus']);
    expect(denseSize('nexus')).toBeUndefined();

    // An operator's `nexus memory` command (no background re-index) opens it the same way.
    const command = await openLocalMemoryService({ config: configFor(server.baseUrl), logger: silentLogger });
    opened.push(command);
    expect(await searchState(command.service)).toBe(`lexical: ${reason}`);

    let stdout = '';
    await doctorCommand({
      config: { env: envFor(server.baseUrl, off) },
      output: { out: (text) => (stdout += text), error: () => {} },
    });
    expect(stdout).toContain(
      "! memory search: lexical (BM25): the Qdrant collection's 3 memories are lexical, not nomic-embed-text (32 dimensions), and NEXUS_MEMORY_AUTO_REINDEX is off\n    fix: NEXUS_EMBEDDING_MODEL=nomic-embed-text NEXUS_EMBEDDING_DIMENSIONS=32 nexus memory reindex, or set NEXUS_MEMORY_AUTO_REINDEX=true\n",
    );
  });

  it('stays lexical with the reason when the provider has no embeddings, in the service, nexus doctor and /health', async () => {
    server = await startScriptedModelServer({ embeddings: false });
    const reason = `${server.baseUrl}/embeddings answered 404 for nomic-embed-text; set NEXUS_EMBEDDING_MODEL to use another model`;
    const { service } = await openAsGateway();
    // Asked again with backoff: a provider serving embeddings later re-indexes it, no restart.
    const askedAgain = /; asking the provider again in \d+ s$/u;
    expect(await searchState(service)).toMatch(askedAgain);
    expect(await searchState(service)).toContain(`lexical: ${reason}; `);
    expect(denseSize('nexus')).toBeUndefined();

    let stdout = '';
    await doctorCommand({
      config: { env: envFor(server.baseUrl) },
      output: { out: (text) => (stdout += text), error: () => {} },
    });
    expect(stdout).toContain(`! memory search: lexical (BM25): ${reason}\n    fix: serve an embedding model`);

    const gateway = await startTestGateway({ dataDir, modelBaseUrl: server.baseUrl, env: qdrantEnv() });
    opened.push({ close: () => gateway.dispose() });
    const body = (await (await fetch(`${gateway.url}/health`)).json()) as {
      memory?: { search: string; reason?: string };
    };
    expect(body.memory).toMatchObject({ search: 'lexical', reason: expect.stringMatching(askedAgain) });
    expect(body.memory?.reason?.startsWith(`${reason}; `)).toBe(true);
  });

  it("says in the gateway's /health that it re-indexes for the detected model, then that search is hybrid and why", async () => {
    await seedLexicalCollection(150);
    // The gateway's own batch size (64): three embed calls of 300 ms each.
    server = await startScriptedModelServer({ embeddingDimensions: 32, latencyMs: 300 });
    const gateway = await startTestGateway({ dataDir, modelBaseUrl: server.baseUrl, env: qdrantEnv() });
    opened.push({ close: () => gateway.dispose() });
    const memoryLine = () => healthMemoryLine(gateway.url);
    await expect
      .poll(memoryLine, { timeout: 10_000, interval: 50 })
      .toMatch(/^lexical: re-indexing for openai-compatible:nomic-embed-text \(32 dimensions\)/u);
    await expect
      .poll(memoryLine, { timeout: 20_000, interval: 100 })
      .toBe(`hybrid: the provider serves nomic-embed-text (32 dimensions) at ${server.baseUrl}/embeddings`);
  });
});
