import type { Logger } from '@nexus/protocol';
import { oncePerInterval, redisReconnectDelayMs } from '@nexus/queue-kit';
import { Redis } from 'ioredis';

/**
 * A Redis connection for the roles. It reconnects forever (100 ms doubling to 2 s), and its
 * commands wait for Redis across reconnects rather than failing after a few tries: a reply event
 * written while Redis restarts arrives late instead of never, and a blocking read (XREAD BLOCK)
 * resumes where it was. Whoever must not wait that long bounds the wait itself (the remote
 * agent's deadlines); `health()` of the roles reads `status` to say when Redis is gone.
 */
export function createRedisClient(options: {
  url: string;
  name: string;
  logger: Logger;
  blocking?: boolean;
  /** For a one-shot command line: commands fail after one reconnection attempt instead of waiting. */
  failFast?: boolean;
}): Redis {
  const client = new Redis(options.url, {
    connectionName: options.name,
    maxRetriesPerRequest: options.failFast ? 1 : null,
    retryStrategy: redisReconnectDelayMs,
    enableAutoPipelining: !options.blocking,
  });
  let down = false;
  // One line per 10 s while Redis is down, not one per reconnection attempt.
  const report = oncePerInterval((error: Error) =>
    options.logger.warn({ connection: options.name, err: error }, 'Redis connection error; reconnecting'),
  );
  client.on('error', (error: Error) => {
    down = true;
    report(error);
  });
  client.on('ready', () => {
    if (!down) return;
    down = false;
    options.logger.info({ connection: options.name }, 'Redis connection back');
  });
  return client;
}
