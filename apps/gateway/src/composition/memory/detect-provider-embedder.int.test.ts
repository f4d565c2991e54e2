import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '@nexus/protocol';
import { type ScriptedModelServer, startScriptedModelServer } from '@nexus/testkit/llm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/load-config.ts';
import { scriptedProviderEnv } from '../../testing/memory-test-support.ts';
import { openLocalMemoryService } from './create-gateway-memory.ts';
import { detectProviderEmbedder } from './detect-provider-embedder.ts';

let dataDir: string;
let server: ScriptedModelServer | undefined;
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'nexus-detect-embedder-'));
});
afterEach(async () => {
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

describe('semantic search wherever the provider offers embeddings', () => {
  it('turns hybrid search on when the provider answers /v1/embeddings, with the model and why', async () => {
    server = await startScriptedModelServer({ embeddingDimensions: 48 });
    const config = configFor(server.baseUrl);
    const detected = await detectProviderEmbedder(config);
    expect(detected.embedder).toMatchObject({ dimensions: 48 });
    expect(detected.reason).toContain('nomic-embed-text (48 dimensions)');

    const local = await openLocalMemoryService({ config, logger: silentLogger });
    try {
      const health = await local.service.health();
      expect(health).toMatchObject({ search: 'hybrid', reason: expect.stringContaining('nomic-embed-text') });
      // A paraphrase with a shared word is found through the vectors too (the scripted embedding
      // is a bag of hashed words), and the request really went to the provider.
      await local.service.add({ userId: 'ada', content: 'Lives in Porto with a flatmate' });
      const hits = await local.service.search({ userId: 'ada', query: 'Porto' });
      expect(hits[0]?.content).toBe('Lives in Porto with a flatmate');
      const embeddingRequests = server.requests.filter((request) => request.path === '/v1/embeddings');
      expect(embeddingRequests.length).toBeGreaterThanOrEqual(3);
    } finally {
      await local.close();
    }
  });

  it('stays lexical, saying why, when the provider has no embeddings; and when turned off', async () => {
    server = await startScriptedModelServer({ embeddings: false });
    const config = configFor(server.baseUrl);
    const detected = await detectProviderEmbedder(config);
    expect(detected.embedder).toBeUndefined();
    expect(detected.reason).toMatch(/answered 404 for nomic-embed-text; set NEXUS_EMBEDDING_MODEL/u);
    const local = await openLocalMemoryService({ config, logger: silentLogger });
    try {
      expect(await local.service.health()).toMatchObject({ search: 'lexical', reason: detected.reason });
    } finally {
      await local.close();
    }

    const off = configFor(server.baseUrl, { NEXUS_EMBEDDING_AUTO: 'false' });
    const offLocal = await openLocalMemoryService({ config: off, logger: silentLogger });
    try {
      expect((await offLocal.service.health()).reason).toContain('NEXUS_EMBEDDING_AUTO is off');
    } finally {
      await offLocal.close();
    }
  });

  it('keeps a store that already holds lexical memories lexical, and says how to reindex', async () => {
    const lexicalOnly = await startScriptedModelServer({ embeddings: false });
    const before = await openLocalMemoryService({
      config: configFor(lexicalOnly.baseUrl),
      logger: silentLogger,
    });
    await before.service.add({ userId: 'ada', content: 'Prefers tea' });
    await before.close();
    await lexicalOnly.close();

    server = await startScriptedModelServer();
    const local = await openLocalMemoryService({ config: configFor(server.baseUrl), logger: silentLogger });
    try {
      const health = await local.service.health();
      expect(health.search).toBe('lexical');
      expect(health.reason).toContain('memories are lexical: run `NEXUS_EMBEDDING_MODEL=nomic-embed-text');
      expect(health.reason).toContain('nexus memory reindex');
      expect((await local.service.search({ userId: 'ada', query: 'tea' }))[0]?.content).toBe('Prefers tea');
    } finally {
      await local.close();
    }
  });

  it('does not ask a provider without an embeddings API', async () => {
    const config = loadConfig({
      env: {
        NEXUS_DATA_DIR: dataDir,
        NEXUS_MODEL_PROVIDER: 'anthropic',
        NEXUS_MODEL: 'claude-test',
        NEXUS_MODEL_API_KEY: 'sk-ant-test',
      },
    });
    expect(await detectProviderEmbedder(config)).toEqual({
      reason: 'the model provider (anthropic) offers no embeddings API',
    });
  });
});
