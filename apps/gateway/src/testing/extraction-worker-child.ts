// A worker process for crash tests: opens the given job queue and memory service and handles
// `memory.extract` jobs until the parent kills it.
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { startMemoryExtractionWorker } from '@nexus/core';
import { createMemoryClient } from '@nexus/memory';
import type { JobQueue } from '@nexus/protocol';
import { createBullMqJobQueue } from '@nexus/queue-bullmq';
import { createSqliteJobQueue } from '@nexus/queue-sqlite';

export interface ExtractionWorkerChildConfig {
  queue: { kind: 'sqlite'; path: string } | { kind: 'bullmq'; url: string; prefix: string };
  memoryUrl: string;
  memoryApiKey: string;
  modelBaseUrl: string;
}

/** Short leases, so a killed worker's job comes back within a second or two. */
export function openCrashTestQueue(config: ExtractionWorkerChildConfig['queue']): JobQueue {
  return config.kind === 'sqlite'
    ? createSqliteJobQueue({ path: config.path, leaseMs: 1_000, pollIntervalMs: 50 })
    : createBullMqJobQueue({
        connection: { url: config.url },
        prefix: config.prefix,
        lockDurationMs: 1_000,
        stalledIntervalMs: 500,
      });
}

if (process.send && process.argv[2]) {
  const config = JSON.parse(process.argv[2]) as ExtractionWorkerChildConfig;
  startMemoryExtractionWorker({
    queue: openCrashTestQueue(config.queue),
    memory: createMemoryClient({ baseUrl: config.memoryUrl, apiKey: config.memoryApiKey }),
    model: createOpenAICompatible({ baseURL: config.modelBaseUrl, name: 'scripted' })('cheap-model'),
  });
  process.send({ type: 'ready' });
}
