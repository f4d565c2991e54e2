import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { describeJobQueueContract } from '@nexus/testkit/queue';
import { Redis } from 'ioredis';
import { beforeAll } from 'vitest';
import { type BullMqJobQueueOptions, createBullMqJobQueue } from './bullmq-job-queue.ts';

const REDIS_URL = 'redis://127.0.0.1:6379';
const prefix = `nexus-test-${randomBytes(4).toString('hex')}`;
// Short locks so a SIGKILLed worker's job is detected as stalled within about two seconds.
const options: BullMqJobQueueOptions = {
  connection: { url: REDIS_URL },
  prefix,
  lockDurationMs: 1_000,
  stalledIntervalMs: 300,
};

beforeAll(async () => {
  const client = new Redis(REDIS_URL, {
    lazyConnect: true,
    connectTimeout: 2_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  let lastError: Error | undefined;
  client.on('error', (error: Error) => {
    lastError = error;
  });
  try {
    await client.connect();
    await client.ping();
  } catch (error) {
    const cause = lastError ?? error;
    const detail = cause instanceof Error ? cause.message : String(cause);
    throw new Error(
      `Redis is unreachable at ${REDIS_URL} (${detail}). ` +
        'The BullMQ JobQueue contract needs a real Redis: start redis-server on 127.0.0.1:6379.',
    );
  } finally {
    client.disconnect();
  }
});

describeJobQueueContract({
  name: 'BullMQ on Redis',
  create: async () => createBullMqJobQueue(options),
  cleanup: async () => {
    const client = new Redis(REDIS_URL);
    try {
      let cursor = '0';
      do {
        const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
        cursor = next;
        if (keys.length > 0) await client.del(...keys);
      } while (cursor !== '0');
    } finally {
      await client.quit();
    }
  },
  worker: {
    module: fileURLToPath(new URL('./bullmq-job-queue.ts', import.meta.url)),
    exportName: 'createBullMqJobQueue',
    options,
  },
});
