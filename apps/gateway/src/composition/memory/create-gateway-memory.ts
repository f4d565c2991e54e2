import { join } from 'node:path';
import {
  type SessionStore,
  sharedTokenCounter,
  startMemoryExtractionWorker,
  startSessionSummaryWorker,
  type TokenCounter,
  type TurnMemoryOptions,
} from '@nexus/core';
import {
  createMemoryClient,
  createOpenAICompatibleEmbedder,
  createSqliteMemoryStore,
  type Embedder,
  type MemoryApi,
  MemoryService,
  type MemoryStore,
  readStoreIndex,
} from '@nexus/memory';
import type { JobProcessor, JobQueue, Logger, MemoryPort } from '@nexus/protocol';
import type { LanguageModel } from 'ai';
import type { GatewayConfig } from '../../config/gateway-config.ts';
import { ensurePrivateDirectory, privateFilePath } from '../../data-dir/private-path.ts';
import type { MemoryMetrics } from '../../metrics/memory-metrics.ts';
import type { GatewayTracing } from '../../tracing/gateway-tracing.ts';
import { createGatewayJobQueue } from '../create-gateway-job-queue.ts';
import { createLanguageModel } from '../create-language-model.ts';
import { DEFAULT_EMBEDDING_MODELS, detectProviderEmbedder } from './detect-provider-embedder.ts';
import { loadTransformersAddon } from './load-transformers-addon.ts';
import { openPersonLane } from './open-person-lane.ts';
import { type ReindexTuning, reindexInBackground } from './reindex-in-background.ts';
import { reindexQdrantInBackground } from './reindex-qdrant-in-background.ts';

export interface GatewayMemory {
  /** The memory service, in process or over HTTP; core sees only the `MemoryPort` part of it. */
  service: MemoryApi;
  /** What `createNexusCore` takes as `memory`. */
  coreOptions: TurnMemoryOptions;
  /** The one tokenizer of the process, shared by history and memory. */
  tokenCounter: TokenCounter;
  jobQueue: JobQueue;
  /** Starts extraction (concurrency 2) and session summaries in this process. */
  startWorkers(options: {
    sessionStore: SessionStore;
    /** The speaker's zone, for "today" in the extraction prompt. */
    timeZoneOf?: (userId: string) => string;
    /** Turns waiting for a slot in this process: extraction and summaries wait while there are any. */
    turnsWaiting?: () => number;
  }): void;
  /** Lets running memory jobs finish within a few seconds, or hands them back for the next start. */
  stopWorkers(): Promise<void>;
  /** Stops the workers, then closes the queue (when created here) and the store. */
  close(): Promise<void>;
}

/**
 * Memory for the gateway: the in-process service on `<dataDir>/memory.sqlite` or the HTTP client
 * of a separate memory service, the job queue (BullMQ when Redis is configured, else embedded
 * SQLite in `<dataDir>/jobs.sqlite`, unless one is passed in), and the extraction model
 * (`NEXUS_EXTRACTION_MODEL`, else the chat model).
 */
export async function createGatewayMemory(options: {
  config: GatewayConfig;
  logger: Logger;
  /** The chat model; without one there is nothing to extract with. */
  model: LanguageModel | undefined;
  jobQueue?: JobQueue;
  /** Tracing on: extraction and summary jobs continue the trace of the turn that queued them. */
  tracing?: GatewayTracing;
  metrics?: MemoryMetrics;
  fetch?: typeof globalThis.fetch;
  /** A command that opens memory for a moment: it never re-indexes the store (`reindexElsewhere`). */
  shortLived?: boolean;
}): Promise<GatewayMemory> {
  const { config, logger } = options;
  const settings = config.memory;
  const memoryLogger = logger.child({ component: 'memory' });
  const tokenCounter = sharedTokenCounter();
  let service: MemoryApi;
  let closeStore = async () => {};
  if (settings.mode === 'http') {
    service = createMemoryClient({
      baseUrl: settings.url!,
      apiKey: settings.apiKey!,
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
    service
      .health({ abortSignal: AbortSignal.timeout(settings.contextBudgetMs) })
      .then((health) =>
        memoryLogger.info(
          { url: settings.url, search: health.search, embedder: health.embedder ?? null },
          health.search === 'lexical'
            ? 'memory service reachable; no embedder configured there, search is lexical only'
            : 'memory service reachable',
        ),
      )
      .catch((error: unknown) =>
        memoryLogger.warn(
          { url: settings.url, err: error },
          'memory service not reachable at startup; replies go on without memory until it is',
        ),
      );
  } else {
    const local = await openLocalMemoryService({
      config,
      logger: memoryLogger,
      tokenCounter,
      backgroundReindex: true,
      ...(options.shortLived ? { reindexElsewhere: true } : {}),
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
    service = local.service;
    closeStore = local.close;
  }
  const port: MemoryPort = service;
  const ownsQueue = options.jobQueue === undefined;
  const createdQueue = options.jobQueue ?? (await createGatewayJobQueue(config, logger, 'jobs.sqlite'));
  // A queue handed in (the distributed one) is traced already by its creator.
  const jobQueue =
    options.tracing && !options.jobQueue ? options.tracing.traceJobQueue(createdQueue) : createdQueue;
  const extractionModel =
    options.model && config.memory.extractionModel
      ? await createLanguageModel({ ...config.model, name: config.memory.extractionModel }, options)
      : options.model;
  const groupPersonalMemory = settings.groupPersonalMemory ?? [];
  // Said at every start: the owner vouches for these groups' membership, and should see the list.
  if (groupPersonalMemory.length > 0)
    memoryLogger.warn(
      { groups: groupPersonalMemory.map((entry) => `${entry.conversation}=${entry.userId}`) },
      'personal memory is used in the groups listed in NEXUS_GROUP_PERSONAL_MEMORY; remove a group from it as soon as anyone else can read it',
    );
  const processors: JobProcessor[] = [];
  const stopWorkers = () =>
    Promise.all(processors.splice(0).map((processor) => processor.stop({ timeoutMs: 5_000 }))).then(() => {});

  return {
    service,
    jobQueue,
    tokenCounter,
    coreOptions: {
      port,
      jobQueue,
      budgetMs: settings.contextBudgetMs,
      extraction: settings.extraction,
      summaryIdleMs: settings.summaryIdleMs,
      welcomeBackAfterMs: Math.round(settings.welcomeBackAfterHours * 3_600_000),
      tools: config.model.tools,
      groupPersonalMemory,
      ...(options.metrics ? { onMemoryStep: (report) => options.metrics?.observeMemoryStep(report) } : {}),
    },
    startWorkers({ sessionStore, timeZoneOf, turnsWaiting }) {
      const repliesFirst = turnsWaiting ? { repliesFirst: { turnsWaiting } } : {};
      if (!extractionModel) {
        memoryLogger.warn({}, 'no model configured: no memory extraction, no conversation summaries');
        return;
      }
      if (settings.extraction)
        processors.push(
          startMemoryExtractionWorker({
            queue: jobQueue,
            memory: port,
            model: extractionModel,
            concurrency: 2,
            logger,
            ...repliesFirst,
            ...(timeZoneOf ? { timeZoneOf } : {}),
            ...(options.metrics
              ? { onExtracted: (report) => options.metrics?.observeExtraction(report) }
              : {}),
          }),
        );
      if (settings.summaryIdleMs > 0)
        processors.push(
          startSessionSummaryWorker({
            queue: jobQueue,
            memory: port,
            model: extractionModel,
            sessionStore,
            logger,
            ...repliesFirst,
          }),
        );
      memoryLogger.info(
        {
          mode: settings.mode,
          extraction: settings.extraction,
          summaryIdleMs: settings.summaryIdleMs,
          model: config.memory.extractionModel ?? config.model.name,
        },
        'memory workers running',
      );
    },
    stopWorkers,
    async close() {
      await stopWorkers();
      if (ownsQueue) await jobQueue.close({ timeoutMs: 1_000 });
      await closeStore();
    },
  };
}

/**
 * The memory service on this process's own store (Qdrant when `NEXUS_QDRANT_URL` is set, else
 * `<dataDir>/memory.sqlite`) with the configured embedder: what in-process memory, `nexus memory
 * serve` and the operator's `nexus memory` commands all open. With `backgroundReindex` (the
 * gateway and `nexus memory serve`, when `NEXUS_MEMORY_AUTO_REINDEX` is on), a store (the
 * embedded file or the Qdrant collection) not indexed with the embedder is re-indexed in the
 * background, lexical until it is done.
 */
export async function openLocalMemoryService(options: {
  config: GatewayConfig;
  logger: Logger;
  tokenCounter?: TokenCounter;
  fetch?: typeof globalThis.fetch;
  backgroundReindex?: boolean;
  /**
   * With `backgroundReindex`: a store that needs re-indexing is opened lexically, as it is, and
   * the re-index left to the gateway or memory service. For a short-lived command (`nexus users
   * forget`), which must work while they re-index and must not start a second re-index.
   */
  reindexElsewhere?: boolean;
  reindexTuning?: ReindexTuning;
}): Promise<{ service: MemoryApi; close(): Promise<void> }> {
  const { config } = options;
  const tokenCounter = options.tokenCounter ?? sharedTokenCounter();
  const autoReindex = options.backgroundReindex === true && config.memory.autoReindex;
  const { embedder, store, reason, reindexTo } = await chooseEmbedderAndStore(
    config,
    options.fetch,
    autoReindex,
  );
  // Shared by the lexical and the hybrid service, so a re-index's switch keeps one lane.
  const personLane = openPersonLane({
    config,
    logger: options.logger,
    ...(options.reindexElsewhere ? { shortLived: true } : {}),
  });
  const serviceOn = (on: MemoryStore, onEmbedder: Embedder | undefined, why: string) =>
    new MemoryService({
      store: on,
      ...(personLane.lane ? { lane: personLane.lane } : {}),
      ...(onEmbedder ? { embedder: onEmbedder } : {}),
      searchReason: why,
      logger: options.logger,
      // Scopes that outlive most of the budget are dropped inside, so the step returns partial results in time.
      scopeTimeoutMs: Math.max(25, Math.floor(config.memory.contextBudgetMs * 0.75)),
      tokenCounter,
    });
  let service: MemoryService;
  try {
    // The service logs which search is on and why.
    service = serviceOn(store, embedder, reason);
  } catch (error) {
    await store.close();
    await personLane.close();
    throw error;
  }
  if (!reindexTo || options.reindexElsewhere)
    return { service, close: () => store.close().finally(() => personLane.close()) };
  const wanted = { embedderId: reindexTo.id, dimensions: reindexTo.dimensions };
  const hybridReason = reason.replace(/; (the store's|\d+ of the store's) .*$/u, '');
  const { qdrantUrl, qdrantApiKey, qdrantCollection } = config.memory;
  if (qdrantUrl)
    return withLaneClosed(
      personLane,
      reindexQdrantInBackground({
        qdrant: {
          url: qdrantUrl,
          ...(qdrantApiKey ? { apiKey: qdrantApiKey } : {}),
          collection: qdrantCollection,
        },
        embedder: reindexTo,
        logger: options.logger,
        lexical: { service, store },
        async openHybrid(collection) {
          const hybridStore = await openMemoryStore(config, wanted, collection);
          return { service: serviceOn(hybridStore, reindexTo, hybridReason), store: hybridStore };
        },
        ...(options.reindexTuning ? { tuning: options.reindexTuning } : {}),
      }),
    );
  return reindexInBackground({
    path: storePath(config),
    embedder: reindexTo,
    logger: options.logger,
    lexical: { service, store },
    async openHybrid() {
      const hybridStore = await openMemoryStore(config, wanted);
      return { service: serviceOn(hybridStore, reindexTo, hybridReason), store: hybridStore };
    },
    ...(options.reindexTuning ? { tuning: options.reindexTuning } : {}),
  });
}

/** `running` whose close also closes the person lane's Redis connection. */
function withLaneClosed<T extends { close(): Promise<void> }>(
  lane: { close(): Promise<void> },
  running: T,
): T {
  const close = running.close.bind(running);
  return Object.assign(running, { close: () => close().finally(() => lane.close()) });
}

/**
 * The configured embedder; else, with `NEXUS_EMBEDDING_AUTO` on, the one the model provider
 * serves (`detectProviderEmbedder`), on the embedded store and on Qdrant alike. Either is used
 * when the store is empty (a Qdrant collection: not created yet) or already indexed with it; a
 * store indexed otherwise is lexical until it is moved: in the background (`reindexTo`) with
 * `autoReindex`, else by `nexus memory reindex`, so no memory silently loses its place in search.
 */
async function chooseEmbedderAndStore(
  config: GatewayConfig,
  fetch: typeof globalThis.fetch | undefined,
  autoReindex: boolean,
): Promise<{ embedder: Embedder | undefined; store: MemoryStore; reason: string; reindexTo?: Embedder }> {
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
    return { embedder: undefined, store: await openMemoryStore(config, undefined), reason: detected.reason };
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

/** `embedder` on the embedded store when it is empty or indexed with it; else lexical, and why. */
async function fitStore(
  config: GatewayConfig,
  embedder: Embedder,
  reason: string,
  autoReindex: boolean,
): Promise<{ embedder: Embedder | undefined; store: MemoryStore; reason: string; reindexTo?: Embedder }> {
  const store = await openMemoryStore(config, undefined);
  const wanted = { embedderId: embedder.id, dimensions: embedder.dimensions };
  const stored = store.vectorSpace;
  const { totalMemories } = await store.stats({});
  if (stored?.embedderId === wanted.embedderId && stored.dimensions === wanted.dimensions) {
    const missing = autoReindex ? (readStoreIndex(storePath(config))?.withoutVectors ?? 0) : 0;
    if (missing === 0) return { embedder, store, reason };
    return {
      embedder: undefined,
      store,
      reason: `${reason}; ${missing} of the store's ${totalMemories} memories have no vector yet`,
      reindexTo: embedder,
    };
  }
  if (!stored && totalMemories === 0) {
    await store.close();
    return { embedder, store: await openMemoryStore(config, wanted), reason };
  }
  const indexed = stored ? `indexed with ${stored.embedderId}` : 'lexical';
  if (autoReindex)
    return {
      embedder: undefined,
      store,
      reason: `${reason}; the store's ${totalMemories} memories are ${indexed}`,
      reindexTo: embedder,
    };
  return {
    embedder: undefined,
    store,
    reason: lexicalUntilReindexed(config, embedder, reason, totalMemories, indexed),
  };
}

/**
 * `embedder` on the Qdrant collection when it does not exist yet or is indexed with it; else
 * lexical on the collection as it is, re-indexed in the background (`reindexTo`) with
 * `autoReindex`, or left for `nexus memory reindex` (the reason names it). Any other vector space
 * counts, even with no points: Qdrant cannot give a collection a dense vector it lacks, and the
 * re-index of an empty one is over in a few requests. A switch interrupted between deleting the
 * original and creating the alias is finished first, whatever `autoReindex` says: opening would
 * otherwise create an empty collection under the configured name, and the copy is complete.
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
  const stored = state.vectorSpace;
  const same = stored?.embedderId === wanted.embedderId && stored.dimensions === wanted.dimensions;
  if (!state.exists || same) return { embedder, store: await openMemoryStore(config, wanted), reason };
  const indexed = stored ? `indexed with ${stored.embedderId}` : 'lexical';
  const store = await openMemoryStore(config, undefined);
  if (!autoReindex)
    return {
      embedder: undefined,
      store,
      reason: lexicalUntilReindexed(config, embedder, reason, state.total, indexed),
    };
  return {
    embedder: undefined,
    store,
    reason: `${reason}; the store's ${state.total} memories are ${indexed}`,
    reindexTo: embedder,
  };
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
      ...(vectors ? { vectors } : {}),
    });
  }
  return createSqliteMemoryStore({
    path: storePath(config),
    ...(vectors ? { vectors } : {}),
    vectorCache:
      config.memory.vectorCacheMb === 0 ? false : { maxBytes: config.memory.vectorCacheMb * 1024 * 1024 },
    lexicalCache: { maxBytes: config.memory.lexicalCacheMb * 1024 * 1024 },
  });
}

/** The embedded store's file, created private. */
function storePath(config: GatewayConfig): string {
  return privateFilePath(join(config.dataDir, 'memory.sqlite'));
}
