import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MemoryApi } from '@nexus/memory';
import { silentLogger } from '@nexus/protocol';
import { type ScriptedModelServer, startScriptedModelServer } from '@nexus/testkit/llm';
import { type QdrantStandIn, startQdrantStandIn } from '@nexus/testkit/qdrant';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/load-config.ts';
import { scriptedProviderEnv } from '../../testing/memory-test-support.ts';
import { openLocalMemoryService } from './create-gateway-memory.ts';

// The Ollama stack's first start: the chat model is there, the embedding model is still being
// pulled, so the provider's /v1/embeddings answers 404 until it is.
let dataDir: string;
let server: ScriptedModelServer;
let qdrant: QdrantStandIn | undefined;
const opened: Array<{ close(): Promise<void> }> = [];
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'nexus-recheck-embedder-'));
  server = await startScriptedModelServer({ embeddingDimensions: 64 });
  server.setEmbeddingFailure(404);
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((local) => local.close()));
  await server.close();
  await qdrant?.close();
  qdrant = undefined;
  await rm(dataDir, { recursive: true, force: true });
});

async function open(store: 'embedded' | 'qdrant', extra: Record<string, string> = {}) {
  if (store === 'qdrant') qdrant = await startQdrantStandIn();
  const onQdrant = qdrant ? { NEXUS_QDRANT_URL: qdrant.url, NEXUS_QDRANT_COLLECTION: 'nexus' } : {};
  const local = await openLocalMemoryService({
    config: loadConfig({ env: { ...scriptedProviderEnv(dataDir, server.baseUrl), ...onQdrant, ...extra } }),
    logger: silentLogger,
    backgroundReindex: true,
    reindexTuning: { batchSize: 10, progressEveryMs: 0 },
    recheckTuning: { firstDelayMs: 20, maxDelayMs: 80 },
  });
  opened.push(local);
  return local;
}

const searchState = async (service: MemoryApi) => {
  const { search, reason } = await service.health();
  return `${search}: ${reason}`;
};
const embeddingRequests = () => server.requests.filter((request) => request.path === '/v1/embeddings').length;

// Cosine 0.97 with the scripted server's vectors, but only 0.71 of their words in common: the
// lexical near-duplicate check keeps them apart, the 0.92 cosine check merges them.
const SOFA = 'Has a cat that is called Miso and it is the one that is always on the sofa';
const BED = 'Has a cat that is called Miso and it is the one that is always on the bed';

describe.each(['embedded', 'qdrant'] as const)(
  'embeddings that appear at the provider after start (%s store)',
  (store) => {
    it('keeps asking with backoff while lexical, then re-indexes and turns hybrid without a restart', async () => {
      const { service } = await open(store);
      expect(await searchState(service)).toMatch(
        /^lexical: .*answered 404 for nomic-embed-text.*; asking the provider again in \d+ s$/u,
      );
      await service.add({ userId: 'ada', content: 'Keeps bees in the garden' });
      // Asked again and again while it stays 404, each time a little later.
      await expect.poll(embeddingRequests, { timeout: 5_000, interval: 10 }).toBeGreaterThanOrEqual(4);
      expect(await searchState(service)).toMatch(/^lexical: /u);

      server.setEmbeddingFailure(undefined);
      await expect
        .poll(() => searchState(service), { timeout: 10_000, interval: 10 })
        .toMatch(/^hybrid: the provider serves nomic-embed-text \(64 dimensions\)/u);
      expect((await service.health()).embedder).toBe('openai-compatible:nomic-embed-text');
      // What was told while lexical got its vector in the re-index and is found by meaning now.
      const [found] = await service.search({ userId: 'ada', query: 'bees garden' });
      expect(found?.content).toBe('Keeps bees in the garden');

      await service.add({ userId: 'ada', content: SOFA });
      expect(await service.add({ userId: 'ada', content: BED })).toMatchObject({
        action: 'updated',
        deduplicated: true,
        previousContent: SOFA,
      });
    });

    it('while lexical the same two facts stay two (the merge above is the cosine check’s)', async () => {
      const { service } = await open(store);
      await service.add({ userId: 'ada', content: SOFA });
      expect(await service.add({ userId: 'ada', content: BED })).toMatchObject({ action: 'inserted' });
    });

    it('never asks again with NEXUS_EMBEDDING_AUTO off', async () => {
      const { service } = await open(store, { NEXUS_EMBEDDING_AUTO: 'false' });
      const before = embeddingRequests();
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(embeddingRequests()).toBe(before);
      expect(await searchState(service)).toBe(
        'lexical: NEXUS_EMBEDDING_MODEL is unset and NEXUS_EMBEDDING_AUTO is off',
      );
    });
  },
);
