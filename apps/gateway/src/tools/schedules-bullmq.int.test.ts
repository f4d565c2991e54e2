import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSchedules, type Schedules } from '@nexus/core';
import { type JobQueue, type OutboundIntent, silentLogger } from '@nexus/protocol';
import { createBullMqJobQueue } from '@nexus/queue-bullmq';
import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it } from 'vitest';

// Schedules on BullMQ (Redis time, so the real clock): a reminder set, every process stopped
// before it is due, a new process started: it goes out once.

const REDIS_URL = 'redis://127.0.0.1:6379';
const prefix = `nexus-schedules-${randomBytes(4).toString('hex')}`;
let dir: string | undefined;
const closers: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  if (dir) await rm(dir, { recursive: true, force: true });
});
afterAll(async () => {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    if (found.length > 0) await redis.del(...found);
  } while (cursor !== '0');
  redis.disconnect();
});

function open(path: string, delivered: OutboundIntent[]): { schedules: Schedules; queue: JobQueue } {
  const queue = createBullMqJobQueue({ connection: { url: REDIS_URL }, prefix, logger: silentLogger });
  const schedules = createSchedules({
    path,
    defaultTimeZone: 'UTC',
    queue,
    deliver: async (outbound) => {
      delivered.push(outbound);
      return { status: 'delivered' };
    },
    now: Date.now,
    logger: silentLogger,
  });
  const close = async () => {
    await schedules.close();
    await queue.close({ timeoutMs: 500 });
  };
  closers.push(close);
  return { schedules, queue };
}

describe('schedules on BullMQ', () => {
  it('keeps a reminder over a restart and delivers it once', async () => {
    dir = await mkdtemp(join(tmpdir(), 'nexus-schedules-bullmq-'));
    const path = join(dir, 'schedules.sqlite');
    const delivered: OutboundIntent[] = [];
    const first = open(path, delivered);
    await first.schedules.start();
    const dueAt = Date.now() + 1_500;
    await first.schedules.scheduler.create({
      userId: 'telegram:5',
      conversation: {
        channel: 'telegram',
        conversationId: '5',
        kind: 'direct',
        intentId: 'telegram:5:1',
        userId: 'telegram:5',
        senderPlatformId: '5',
      },
      text: 'Take the cake out',
      timeZone: 'UTC',
      at: dueAt,
    });
    expect((await first.queue.counts({ name: 'schedule.fire' })).delayed).toBe(1);
    await closers.pop()?.();

    const second = open(path, delivered);
    await second.schedules.start();
    const deadline = Date.now() + 15_000;
    while (delivered.length === 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(delivered.map((outbound) => [outbound.text, outbound.dueAt])).toEqual([
      ['Take the cake out', new Date(dueAt).toISOString()],
    ]);
    expect(second.schedules.scheduler.active({ userId: 'telegram:5' })).toEqual([]);
  });
});
