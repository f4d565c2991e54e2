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
  type Embedder,
  type MemoryApi,
  MemoryService,
  type MemoryStore,
} from '@nexus/memory';
import type { JobProcessor, JobQueue, Logger, MemoryPort } from '@nexus/protocol';
import type { LanguageModel } from 'ai';
import type { GatewayConfig } from '../../config/gateway-config.ts';
import type { MemoryMetrics } from '../../metrics/memory-metrics.ts';
import type { GatewayTracing } from '../../tracing/gateway-tracing.ts';
import { chooseExtractionModel } from '../choose-extraction-model.ts';
import { createExtractionModel } from '../create-extraction-model.ts';
import { createGatewayJobQueue } from '../create-gateway-job-queue.ts';
import { chooseEmbedderAndStore, openMemoryStore, storePath } from './choose-embedder-and-store.ts';
import { detectProviderEmbedder } from './detect-provider-embedder.ts';
import { openPersonLane } from './open-person-lane.ts';
import { type RecheckTuning, recheckProviderEmbedder } from './recheck-provider-embedder.ts';
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
 * (`createExtractionModel`: `NEXUS_EXTRACTION_MODEL`, else a cheaper sibling, else the chat model).
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
  const extractionModel = await createExtractionModel({
    config,
    chatModel: options.model,
    logger: memoryLogger,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
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
          model: chooseExtractionModel(config.model, config.memory.extractionModel)?.name,
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
  recheckTuning?: RecheckTuning;
}): Promise<{ service: MemoryApi; close(): Promise<void> }> {
  const { config } = options;
  const tokenCounter = options.tokenCounter ?? sharedTokenCounter();
  const autoReindex = options.backgroundReindex === true && config.memory.autoReindex;
  const { embedder, store, reason, reindexTo, askAgain } = await chooseEmbedderAndStore(
    config,
    options.fetch,
    autoReindex,
  );
  // Shared by the lexical and the hybrid service, so a re-index's switch keeps one lane.
  const personLane = await openPersonLane({
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
  const reindexFrom = (lexical: { service: MemoryApi; store: MemoryStore }, to: Embedder, why: string) => {
    const wanted = { embedderId: to.id, dimensions: to.dimensions };
    const hybridReason = why.replace(/; (the store's|\d+ of the store's) .*$/u, '');
    const { qdrantUrl, qdrantApiKey, qdrantCollection } = config.memory;
    if (qdrantUrl)
      return reindexQdrantInBackground({
        qdrant: {
          url: qdrantUrl,
          ...(qdrantApiKey ? { apiKey: qdrantApiKey } : {}),
          collection: qdrantCollection,
        },
        embedder: to,
        logger: options.logger,
        lexical,
        async openHybrid(collection) {
          const hybridStore = await openMemoryStore(config, wanted, collection);
          return { service: serviceOn(hybridStore, to, hybridReason), store: hybridStore };
        },
        ...(options.reindexTuning ? { tuning: options.reindexTuning } : {}),
      });
    return reindexInBackground({
      path: storePath(config),
      embedder: to,
      logger: options.logger,
      lexical,
      async openHybrid() {
        const hybridStore = await openMemoryStore(config, wanted);
        return { service: serviceOn(hybridStore, to, hybridReason), store: hybridStore };
      },
      ...(options.reindexTuning ? { tuning: options.reindexTuning } : {}),
    });
  };
  if (options.reindexElsewhere || !autoReindex || (!reindexTo && !askAgain))
    return withLaneClosed(personLane, { service, close: () => store.close() });
  if (reindexTo) return withLaneClosed(personLane, reindexFrom({ service, store }, reindexTo, reason));
  // The provider may serve embeddings later (a model still being pulled): asked again with backoff.
  return withLaneClosed(
    personLane,
    recheckProviderEmbedder({
      lexical: { service, store },
      reason,
      detect: () => detectProviderEmbedder(config, options.fetch),
      reindex: (detected, why) => reindexFrom({ service, store }, detected, why),
      logger: options.logger,
      ...(options.recheckTuning ? { tuning: options.recheckTuning } : {}),
    }),
  );
}

/** `running` whose close also closes the person lane's Redis connection. */
function withLaneClosed<T extends { close(): Promise<void> }>(
  lane: { close(): Promise<void> },
  running: T,
): T {
  const close = running.close.bind(running);
  return Object.assign(running, { close: () => close().finally(() => lane.close()) });
}
