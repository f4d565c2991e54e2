import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { type ActiveJob, NexusError } from '@nexus/protocol';
import { describeJobQueueContract, waitFor } from '@nexus/queue-kit/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

async function deleteKeys(): Promise<void> {
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
}

describeJobQueueContract({
  name: 'BullMQ on Redis',
  create: async () => createBullMqJobQueue(options),
  cleanup: deleteKeys,
  worker: {
    module: fileURLToPath(new URL('./bullmq-job-queue.ts', import.meta.url)),
    exportName: 'createBullMqJobQueue',
    options,
  },
});

describe('BullMQ job queue specifics', () => {
  afterAll(deleteKeys);

  it('works on a caller-owned ioredis client and leaves it open on close', async () => {
    const client = new Redis(REDIS_URL);
    const queue = createBullMqJobQueue({ connection: client, prefix });
    try {
      const seen: ActiveJob[] = [];
      queue.process({ name: 'owned-client', handler: async (job) => void seen.push(job) });
      const { jobId } = await queue.enqueue({ name: 'owned-client', payload: { ok: true } });
      await waitFor(async () => (await queue.counts({ name: 'owned-client' })).completed === 1, {
        description: 'the job to complete',
      });
      expect(seen.map((job) => job.id)).toEqual([jobId]);
      await queue.close();
      expect(client.status).toBe('ready');
      expect(await client.ping()).toBe('PONG');
    } finally {
      await queue.close();
      await client.quit();
    }
  });

  it('deletes the jobs of `removeCompletedOf` names as they complete, and keeps only the newest failed jobs', async () => {
    const queue = createBullMqJobQueue({
      ...options,
      removeCompletedOf: ['gone-when-done'],
      keepFailedCount: 3,
    });
    const client = new Redis(REDIS_URL);
    try {
      queue.process({ name: 'gone-when-done', handler: async () => {} });
      queue.process({ name: 'kept-when-done', handler: async () => {} });
      const gone = await queue.enqueue({ name: 'gone-when-done', payload: { photo: 'reference' } });
      await queue.enqueue({ name: 'kept-when-done', payload: { fine: true } });
      await waitFor(async () => (await queue.counts({ name: 'kept-when-done' })).completed === 1, {
        description: 'the kept job to complete',
      });
      await waitFor(async () => (await client.exists(`${prefix}:gone-when-done:${gone.jobId}`)) === 0, {
        description: 'the completed job to be deleted with its payload',
      });
      expect(await queue.counts({ name: 'gone-when-done' })).toMatchObject({ completed: 0, waiting: 0 });

      queue.process({
        name: 'always-fails',
        handler: async () => {
          throw new Error('broken on purpose');
        },
      });
      for (let index = 0; index < 6; index += 1)
        await queue.enqueue({ name: 'always-fails', payload: { index }, attempts: 1 });
      await waitFor(
        async () => {
          const counts = await queue.counts({ name: 'always-fails' });
          return counts.waiting === 0 && counts.active === 0;
        },
        { description: 'every failing job to be parked' },
      );
      const parked = await queue.parked({ name: 'always-fails' });
      expect(parked.length).toBe(3);
      expect(parked.map((job) => (job.payload as { index: number }).index).sort()).toEqual([3, 4, 5]);
    } finally {
      await queue.close();
      await client.quit();
    }
  });

  it('fails enqueue with a retryable error when Redis cannot be reached', async () => {
    const queue = createBullMqJobQueue({
      connection: { url: 'redis://127.0.0.1:1' },
      prefix,
      maxRetriesPerRequest: 1,
    });
    try {
      const failure = await queue
        .enqueue({ name: 'unreachable', payload: {} })
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(NexusError);
      expect(failure).toMatchObject({ retryable: true, message: expect.stringContaining('Redis') });
    } finally {
      await queue.close();
    }
  });
});
