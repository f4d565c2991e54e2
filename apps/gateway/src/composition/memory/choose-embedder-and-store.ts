import { join } from 'node:path';
import {
  createOpenAICompatibleEmbedder,
  createSqliteMemoryStore,
  type Embedder,
  fitEmbedderToStore,
  type MemoryStore,
  readStoreIndex,
} from '@nexus/memory';
import type { GatewayConfig } from '../../config/gateway-config.ts';
import { ensurePrivateDirectory, privateFilePath } from '../../data-dir/private-path.ts';
import { DEFAULT_EMBEDDING_MODELS, detectProviderEmbedder } from './detect-provider-embedder.ts';
import { loadTransformersAddon } from './load-transformers-addon.ts';

/**
 * The configured embedder; else, with `NEXUS_EMBEDDING_AUTO` on, the one the model provider
 * serves (`detectProviderEmbedder`), on the embedded store and on Qdrant alike. Either is used
 * when the store is empty (a Qdrant collection: not created yet) or already indexed with it; a
 * store indexed otherwise is lexical until it is moved: in the background (`reindexTo`) with
 * `autoReindex`, else by `nexus memory reindex`, so no memory silently loses its place in search.
 */
export async function chooseEmbedderAndStore(
  config: GatewayConfig,
  fetch: typeof globalThis.fetch | undefined,
  autoReindex: boolean,
): Promise<{
  embedder: Embedder | undefined;
  store: MemoryStore;
  reason: string;
  reindexTo?: Embedder;
  askAgain?: boolean;
}> {
  const configured = await createGatewayEmbedder(config, fetch);
  if (configured && autoReindex && config.memory.qdrantUrl)
    return fitQdrantCollection(config, configured, 'NEXUS_EMBEDDING_MODEL is set', true);
  if (configured && autoReindex) return fitStore(config, configured, 'NEXUS_EMBEDDING_MODEL is set', true);
  if (configured) {
    const store = await openMemoryStore(config, {
      embedderId: configured.id,
      dimensions: configured.dimensions,
    });
    return { embedder: configured, store, reason: 'NEXUS_EMBEDDING_MODEL is set' };
  }
  if (!config.memory.embeddingAuto)
    return {
      embedder: undefined,
      store: await openMemoryStore(config, undefined),
      reason: 'NEXUS_EMBEDDING_MODEL is unset and NEXUS_EMBEDDING_AUTO is off',
    };
  const detected = await detectProviderEmbedder(config, fetch);
  if (!detected.embedder)
    return {
      embedder: undefined,
      store: await openMemoryStore(config, undefined),
      reason: detected.reason,
      ...(detected.askAgain ? { askAgain: true } : {}),
    };
  if (config.memory.qdrantUrl)
    return fitQdrantCollection(config, detected.embedder, detected.reason, autoReindex);
  return fitStore(config, detected.embedder, detected.reason, autoReindex);
}

/**
 * Why a store holding memories indexed otherwise stays lexical when nothing here re-indexes it,
 * with the command that moves it to the detected embedder (only detection gets here: a configured
 * embedder without the background re-index opens as configured, or refuses a mismatch).
 */
function lexicalUntilReindexed(
  config: GatewayConfig,
  embedder: Embedder,
  reason: string,
  total: number,
  indexed: string,
): string {
  const model = DEFAULT_EMBEDDING_MODELS[config.model.provider === 'openai' ? 'openai' : 'openai-compatible'];
  return `${reason}, but the store's ${total} memories are ${indexed}: run \`NEXUS_EMBEDDING_MODEL=${model} NEXUS_EMBEDDING_DIMENSIONS=${embedder.dimensions} nexus memory reindex\` to switch`;
}

/** `embedder` on the embedded store when `fitEmbedderToStore` says so; else lexical, and why. */
async function fitStore(
  config: GatewayConfig,
  embedder: Embedder,
  reason: string,
  autoReindex: boolean,
): Promise<{ embedder: Embedder | undefined; store: MemoryStore; reason: string; reindexTo?: Embedder }> {
  const store = await openMemoryStore(config, undefined);
  const wanted = { embedderId: embedder.id, dimensions: embedder.dimensions };
  const { totalMemories } = await store.stats({});
  const fit = fitEmbedderToStore({
    wanted,
    stored: store.vectorSpace,
    fresh: !store.vectorSpace && totalMemories === 0,
    totalMemories,
    withoutVectors: autoReindex ? (readStoreIndex(storePath(config))?.withoutVectors ?? 0) : 0,
    autoReindex,
  });
  switch (fit.action) {
    case 'use':
      return { embedder, store, reason };
    case 'fresh':
      await store.close();
      return { embedder, store: await openMemoryStore(config, wanted), reason };
    case 'reindex':
      return { embedder: undefined, store, reason: `${reason}; ${fit.detail}`, reindexTo: embedder };
    case 'lexical':
      return {
        embedder: undefined,
        store,
        reason: lexicalUntilReindexed(config, embedder, reason, totalMemories, fit.indexed),
      };
  }
}

/**
 * `embedder` on the Qdrant collection when `fitEmbedderToStore` says so (a collection that does not
 * exist yet is fresh; any other vector space counts, even with no points: Qdrant cannot give a
 * collection a dense vector it lacks, and the re-index of an empty one is over in a few requests);
 * else lexical on the collection as it is. A switch interrupted between deleting the original and
 * creating the alias is finished first, whatever `autoReindex` says: opening would otherwise
 * create an empty collection under the configured name, and the copy is complete.
 */
async function fitQdrantCollection(
  config: GatewayConfig,
  embedder: Embedder,
  reason: string,
  autoReindex: boolean,
): Promise<{ embedder: Embedder | undefined; store: MemoryStore; reason: string; reindexTo?: Embedder }> {
  const { inspectQdrantCollection, reindexQdrantStore } = await import('@nexus/memory-qdrant');
  const { qdrantUrl, qdrantApiKey, qdrantCollection } = config.memory;
  const connection = { url: qdrantUrl, ...(qdrantApiKey ? { apiKey: qdrantApiKey } : {}) };
  const wanted = { embedderId: embedder.id, dimensions: embedder.dimensions };
  const state = await inspectQdrantCollection({ ...connection, collection: qdrantCollection, wanted });
  if (state.interruptedSwitch)
    await reindexQdrantStore({ ...connection, collection: qdrantCollection, embedder });
  const fit = fitEmbedderToStore({
    wanted,
    stored: state.vectorSpace,
    fresh: !state.exists,
    totalMemories: state.total,
    withoutVectors: 0,
    autoReindex,
  });
  if (fit.action === 'use' || fit.action === 'fresh')
    return { embedder, store: await openMemoryStore(config, wanted), reason };
  const store = await openMemoryStore(config, undefined);
  if (fit.action === 'lexical')
    return {
      embedder: undefined,
      store,
      reason: lexicalUntilReindexed(config, embedder, reason, state.total, fit.indexed),
    };
  return { embedder: undefined, store, reason: `${reason}; ${fit.detail}`, reindexTo: embedder };
}

/**
 * The embedder when `NEXUS_EMBEDDING_MODEL` is set: a local transformers model (the
 * `@nexus/embedder-transformers` add-on; a `ConfigError` naming it when absent), or an
 * OpenAI-compatible API whose defaults follow the chat model's endpoint.
 */
export async function createGatewayEmbedder(
  config: GatewayConfig,
  fetch?: typeof globalThis.fetch,
): Promise<Embedder | undefined> {
  const { embeddingModel, embeddingDimensions } = config.memory;
  if (!embeddingModel || !embeddingDimensions) return undefined;
  if (config.memory.embeddingProvider === 'transformers') {
    const cacheDir = config.memory.embeddingCacheDir ?? join(config.dataDir, 'models');
    // Created private here, before the model library creates it with whatever the umask allows.
    const { createTransformersEmbedder } = await loadTransformersAddon();
    ensurePrivateDirectory(cacheDir);
    return createTransformersEmbedder({
      model: embeddingModel,
      dimensions: embeddingDimensions,
      cacheDir,
      allowRemoteModels: config.memory.embeddingAllowDownload,
    });
  }
  const baseUrl =
    config.memory.embeddingBaseUrl ??
    config.model.baseUrl ??
    (config.model.provider === 'openai' ? 'https://api.openai.com/v1' : undefined);
  const apiKey = config.memory.embeddingApiKey ?? config.model.apiKey;
  return createOpenAICompatibleEmbedder({
    baseUrl: baseUrl!,
    model: embeddingModel,
    dimensions: embeddingDimensions,
    ...(apiKey ? { apiKey } : {}),
    ...(fetch ? { fetch } : {}),
  });
}

/**
 * Qdrant when `NEXUS_QDRANT_URL` is set (imported only then), else the embedded SQLite file.
 * `qdrantCollection` names another collection than the configured one (a re-index's copy).
 */
export async function openMemoryStore(
  config: GatewayConfig,
  vectors: { embedderId: string; dimensions: number } | undefined,
  qdrantCollection = config.memory.qdrantCollection,
): Promise<MemoryStore> {
  if (config.memory.qdrantUrl) {
    const { openQdrantMemoryStore } = await import('@nexus/memory-qdrant');
    return openQdrantMemoryStore({
      url: config.memory.qdrantUrl,
      collection: qdrantCollection,
      ...(config.memory.qdrantApiKey ? { apiKey: config.memory.qdrantApiKey } : {}),
      vectors,
    });
  }
  return createSqliteMemoryStore({
    path: storePath(config),
    vectors,
    vectorCache:
      config.memory.vectorCacheMb === 0 ? false : { maxBytes: config.memory.vectorCacheMb * 1024 * 1024 },
    lexicalCache: { maxBytes: config.memory.lexicalCacheMb * 1024 * 1024 },
  });
}

/** The embedded store's file, created private. */
export function storePath(config: GatewayConfig): string {
  return privateFilePath(join(config.dataDir, 'memory.sqlite'));
}
