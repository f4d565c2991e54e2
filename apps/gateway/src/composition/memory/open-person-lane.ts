import type { PersonLane } from '@nexus/memory';
import type { Logger } from '@nexus/protocol';
import type { GatewayConfig } from '../../config/gateway-config.ts';
import { redisPersonLane } from './redis-person-lane.ts';

/**
 * The person lane of the memory service this process opens: with a Qdrant store, which other
 * processes (memory service replicas, gateways, `nexus users forget`) can write too, and
 * `NEXUS_REDIS_URL` set, the shared Redis lease; otherwise none, and the service queues one
 * person's writes in process (an embedded SQLite file belongs to one process).
 */
export async function openPersonLane(options: {
  config: GatewayConfig;
  logger: Logger;
  /** A one-shot command: Redis commands fail after one reconnection attempt instead of waiting. */
  shortLived?: boolean;
}): Promise<{ lane?: PersonLane; close(): Promise<void> }> {
  const { config, logger } = options;
  const url = config.redis.url;
  if (!config.memory.qdrantUrl || !url) return { close: async () => {} };
  // Loaded only here, so a start without Qdrant and Redis loads no Redis client (lean start).
  const { createRedisClient } = await import('@nexus/agent-redis');
  const redis = createRedisClient({
    url,
    name: 'memory-lane',
    logger,
    ...(options.shortLived ? { failFast: true } : {}),
  });
  logger.info({ prefix: config.redis.prefix }, 'memory: writes per person take a Redis lease (replicas)');
  return {
    lane: redisPersonLane({ redis, prefix: config.redis.prefix, logger }),
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
