import { join } from 'node:path';
import {
  type MemoryPort,
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
} from '@nexus/memory';
import type { JobProcessor, JobQueue, Logger } from '@nexus/protocol';
import { createSqliteJobQueue } from '@nexus/queue-sqlite';
import type { LanguageModel } from 'ai';
import type { GatewayConfig } from '../config/gateway-config.ts';
import { ensurePrivateDirectory, privateFilePath } from '../data-dir/private-path.ts';
import type { MemoryMetrics } from '../metrics/memory-metrics.ts';
import type { GatewayTracing } from '../tracing/gateway-tracing.ts';
import { createLanguageModel } from './create-language-model.ts';
import { loadTransformersAddon } from './load-transformers-addon.ts';

export interface GatewayMemory {
  /** The memory service, in process or over HTTP; core sees only the `MemoryPort` part of it. */
  service: MemoryApi;
  /** What `createNexusCore` takes as `memory`. */
  coreOptions: TurnMemoryOptions;
  /** The one tokenizer of the process, shared by history and memory. */
  tokenCounter: TokenCounter;
  jobQueue: JobQueue;
  /** Starts extraction (concurrency 2) and session summaries in this process. */
  /** `timeZoneOf`: the speaker's zone, for "today" in the extraction prompt. */
  startWorkers(options: { sessionStore: SessionStore; timeZoneOf?: (userId: string) => string }): void;
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
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
    service = local.service;
    closeStore = local.close;
  }
  const port: MemoryPort = service;
  const ownsQueue = options.jobQueue === undefined;
  // With Redis the jobs live there (any process may handle them); otherwise in `<dataDir>/jobs.sqlite`.
  // BullMQ and ioredis are imported only then (about 40 MB of RSS a process without Redis saves).
  const createdQueue =
    options.jobQueue ??
    (config.redis.url
      ? (await import('@nexus/queue-bullmq')).createBullMqJobQueue({
          connection: { url: config.redis.url },
          prefix: config.redis.prefix,
          logger,
        })
      : createSqliteJobQueue({ path: privateFilePath(join(config.dataDir, 'jobs.sqlite')), logger }));
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
    startWorkers({ sessionStore, timeZoneOf }) {
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
 * serve` and the operator's `nexus memory` commands all open.
 */
export async function openLocalMemoryService(options: {
  config: GatewayConfig;
  logger: Logger;
  tokenCounter?: TokenCounter;
  fetch?: typeof globalThis.fetch;
}): Promise<{ service: MemoryService; close(): Promise<void> }> {
  const { config } = options;
  const tokenCounter = options.tokenCounter ?? sharedTokenCounter();
  const embedder = await createGatewayEmbedder(config, options.fetch);
  const vectors = embedder ? { embedderId: embedder.id, dimensions: embedder.dimensions } : undefined;
  const store = await openMemoryStore(config, vectors);
  try {
    // Without an embedder MemoryService logs that search is lexical only.
    const service = new MemoryService({
      store,
      ...(embedder ? { embedder } : {}),
      logger: options.logger,
      // Scopes that outlive most of the budget are dropped inside, so the step returns partial results in time.
      scopeTimeoutMs: Math.max(25, Math.floor(config.memory.contextBudgetMs * 0.75)),
      tokenCounter,
    });
    return { service, close: () => store.close() };
  } catch (error) {
    await store.close();
    throw error;
  }
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

/** Qdrant when `NEXUS_QDRANT_URL` is set (imported only then), else the embedded SQLite file. */
export async function openMemoryStore(
  config: GatewayConfig,
  vectors: { embedderId: string; dimensions: number } | undefined,
): Promise<MemoryStore> {
  if (config.memory.qdrantUrl) {
    const { openQdrantMemoryStore } = await import('@nexus/memory-qdrant');
    return openQdrantMemoryStore({
      url: config.memory.qdrantUrl,
      collection: config.memory.qdrantCollection,
      ...(config.memory.qdrantApiKey ? { apiKey: config.memory.qdrantApiKey } : {}),
      ...(vectors ? { vectors } : {}),
    });
  }
  return createSqliteMemoryStore({
    path: privateFilePath(join(config.dataDir, 'memory.sqlite')),
    ...(vectors ? { vectors } : {}),
    vectorCache:
      config.memory.vectorCacheMb === 0 ? false : { maxBytes: config.memory.vectorCacheMb * 1024 * 1024 },
  });
}
