import { join } from 'node:path';
import type { JobQueue, Logger } from '@nexus/protocol';
import { retryingJobQueue } from '@nexus/queue-kit';
import { createSqliteJobQueue } from '@nexus/queue-sqlite';
import type { GatewayConfig } from '../config/gateway-config.ts';
import { privateFilePath } from '../data-dir/private-path.ts';

/**
 * A queue of the gateway's own jobs (memory jobs, reminder firings). With Redis the jobs live
 * there, so any process may handle them, and an enqueue waits out a Redis restart (up to
 * `NEXUS_REDIS_WAIT_MS`) instead of losing the job; otherwise in `<dataDir>/<sqliteFile>`.
 * BullMQ and ioredis are imported only with Redis (about 40 MB of RSS a process without it saves).
 */
export async function createGatewayJobQueue(
  config: GatewayConfig,
  logger: Logger,
  sqliteFile: string,
  now?: () => number,
): Promise<JobQueue> {
  if (!config.redis.url) {
    return createSqliteJobQueue({
      path: privateFilePath(join(config.dataDir, sqliteFile)),
      logger,
      ...(now ? { now } : {}),
    });
  }
  const { createBullMqJobQueue } = await import('@nexus/queue-bullmq');
  return retryingJobQueue(
    createBullMqJobQueue({ connection: { url: config.redis.url }, prefix: config.redis.prefix, logger }),
    { deadlineMs: config.redis.waitMs, logger },
  );
}
