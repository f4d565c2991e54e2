import type { Logger } from '@nexus/protocol';
import { Redis } from 'ioredis';

/**
 * A Redis connection for the roles. `blocking` connections (XREAD BLOCK) retry their commands
 * forever across reconnects; command connections give up after a few tries so a dead Redis
 * surfaces as an error instead of a hang.
 */
export function createRedisClient(options: {
  url: string;
  name: string;
  logger: Logger;
  blocking?: boolean;
}): Redis {
  const client = new Redis(options.url, {
    connectionName: options.name,
    maxRetriesPerRequest: options.blocking ? null : 3,
    enableAutoPipelining: !options.blocking,
  });
  let lastReported = 0;
  client.on('error', (error: Error) => {
    // One line per 10 s while Redis is down, not one per reconnect attempt.
    if (Date.now() - lastReported < 10_000) return;
    lastReported = Date.now();
    options.logger.warn({ connection: options.name, error: error.message }, 'Redis connection error');
  });
  return client;
}
