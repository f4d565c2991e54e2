import { type ExtractionReport, startMemoryExtractionWorker } from '@nexus/core';
import { createMemoryClient } from '@nexus/memory';
import type { JobProcessor, JobQueue, Logger } from '@nexus/protocol';
import type { LanguageModel } from 'ai';
import { createExtractionModel } from '../composition/create-extraction-model.ts';
import { memoryIsShared } from '../composition/distributed-runs.ts';
import type { GatewayConfig } from '../config/gateway-config.ts';

/**
 * Memory extraction on a worker: `memory.extract` jobs from Redis, the extraction model, and the
 * shared memory service over HTTP. With in-process memory the gateway keeps extraction (the
 * memory file is its own), and this starts nothing.
 */
export async function startWorkerExtraction(options: {
  config: GatewayConfig;
  queue: JobQueue;
  model: LanguageModel | undefined;
  /** The process's model client (see createModelFetch), for a separate extraction model too. */
  fetch?: typeof globalThis.fetch;
  logger: Logger;
  onExtracted?: (report: ExtractionReport) => void;
}): Promise<JobProcessor | undefined> {
  const { config, logger } = options;
  if (!memoryIsShared(config) || !options.model || !config.memory.url || !config.memory.apiKey) {
    logger.info(
      { memoryMode: config.memory.mode },
      'memory extraction not on this worker (it needs NEXUS_MEMORY_MODE=http and a model)',
    );
    return undefined;
  }
  const extractionModel =
    (await createExtractionModel({
      config,
      chatModel: options.model,
      logger,
      ...(options.fetch ? { fetch: options.fetch } : {}),
    })) ?? options.model;
  logger.info({ memoryUrl: config.memory.url }, 'taking memory extraction jobs from Redis');
  return startMemoryExtractionWorker({
    queue: options.queue,
    memory: createMemoryClient({ baseUrl: config.memory.url, apiKey: config.memory.apiKey }),
    model: extractionModel,
    concurrency: 2,
    logger,
    ...(options.onExtracted ? { onExtracted: options.onExtracted } : {}),
  });
}
