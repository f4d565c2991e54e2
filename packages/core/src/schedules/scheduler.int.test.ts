import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type OutboundIntent, silentLogger } from '@nexus/protocol';
import { createSqliteJobQueue } from '@nexus/queue-sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSchedules, type Schedules } from './create-schedules.ts';

let dir: string;
let clock: number;
const delivered: OutboundIntent[] = [];
const open: Schedules[] = [];
const queues: ReturnType<typeof createSqliteJobQueue>[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nexus-scheduler-'));
  delivered.length = 0;
});
afterEach(async () => {
  for (const schedules of open.splice(0)) await schedules.close();
  for (const queue of queues.splice(0)) await queue.close({ timeoutMs: 100 });
  await rm(dir, { recursive: true, force: true });
});

function openSchedules(): Schedules {
  const queue = createSqliteJobQueue({
    path: join(dir, 'jobs.sqlite'),
    now: () => clock,
    pollIntervalMs: 20,
  });
  queues.push(queue);
  const schedules = createSchedules({
    path: join(dir, 'schedules.sqlite'),
    defaultTimeZone: 'UTC',
    queue,
    deliver: async (outbound) => {
      delivered.push(outbound);
      return { status: 'delivered' };
    },
    now: () => clock,
    logger: silentLogger,
  });
  open.push(schedules);
  return schedules;
}

const conversation = {
  channel: 'telegram',
  conversationId: '5',
  kind: 'direct' as const,
  intentId: 'm1',
  userId: 'telegram:5',
  senderPlatformId: '5',
};

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('scheduler on the SQLite job queue', () => {
  it('fires a recurring schedule once per due time', async () => {
    clock = Date.parse('2026-11-25T08:00:00Z');
    const schedules = openSchedules();
    await schedules.start();
    await schedules.scheduler.create({
      userId: 'telegram:5',
      conversation,
      text: 'Plan the week',
      timeZone: 'UTC',
      cron: '0 9 * * *',
    });
    for (const [day, count] of [
      ['25', 1],
      ['26', 2],
      ['27', 3],
    ] as const) {
      clock = Date.parse(`2026-11-${day}T09:00:01Z`);
      await until(() => delivered.length >= count);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(delivered.map((outbound) => [outbound.text, outbound.dueAt])).toEqual([
      ['Plan the week', '2026-11-25T09:00:00.000Z'],
      ['Plan the week', '2026-11-26T09:00:00.000Z'],
      ['Plan the week', '2026-11-27T09:00:00.000Z'],
    ]);
  });
});
