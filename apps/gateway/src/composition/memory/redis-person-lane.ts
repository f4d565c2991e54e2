import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { inProcessPersonLane, type PersonLane } from '@nexus/memory';
import type { Logger } from '@nexus/protocol';
import type { Redis } from 'ioredis';
import { PersonLaneUnavailableError } from './person-lane-unavailable-error.ts';

// Redis's documented single-instance lock: SET key token NX PX to take it; the owner's token is
// checked before it is extended or deleted, so a replica whose lease ran out never frees another's.
const RELEASE = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`;
const EXTEND = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("pexpire", KEYS[1], ARGV[2]) else return 0 end`;

export interface RedisPersonLaneOptions {
  redis: Redis;
  /** The deployment's key prefix (`NEXUS_REDIS_PREFIX`); the lease is `<prefix>:memory-lane:<userId>`. */
  prefix: string;
  /** How long a lease lives unless its holder extends it (every third of it while the write runs). */
  leaseMs?: number;
  /** How long a write waits for the lease (Redis away, or another replica's long write) before failing retryably. */
  waitMs?: number;
  logger: Logger;
}

/**
 * The person lane of memory service replicas on one store: in this process the writes of a person
 * queue as they do alone (so one replica asks Redis for one lease at a time), and each then holds
 * the person's Redis lease while it runs, so no other replica writes for that person meanwhile.
 */
export function redisPersonLane(options: RedisPersonLaneOptions): PersonLane {
  const { redis, logger } = options;
  const leaseMs = options.leaseMs ?? 15_000;
  const waitMs = options.waitMs ?? 5_000;
  const local = inProcessPersonLane();

  async function take(key: string, token: string): Promise<void> {
    const deadline = Date.now() + waitMs;
    let pause = 2;
    for (;;) {
      const left = deadline - Date.now();
      if (left <= 0)
        throw new PersonLaneUnavailableError({
          message: `memory: another replica held this person's write lease for more than ${waitMs} ms; try again`,
        });
      let taken: string | null;
      try {
        taken = await withinMs(redis.set(key, token, 'PX', leaseMs, 'NX'), left);
      } catch (error) {
        throw new PersonLaneUnavailableError({
          message: `memory: Redis did not answer for this person's write lease (${describe(error)}); nothing was written, try again`,
          cause: error,
        });
      }
      if (taken === 'OK') return;
      await sleep(Math.min(pause + Math.random() * pause, Math.max(1, deadline - Date.now())));
      pause = Math.min(pause * 2, 50);
    }
  }

  async function underLease<T>(userId: string, work: () => Promise<T>): Promise<T> {
    const key = `${options.prefix}:memory-lane:${userId}`;
    const token = randomUUID();
    await take(key, token);
    const extend = setInterval(
      () => {
        redis.eval(EXTEND, 1, key, token, leaseMs).then(
          (kept) => {
            if (kept !== 1) logger.warn({ userId }, 'memory: a write outlived its Redis lease');
          },
          (error: unknown) => logger.warn({ err: error }, 'memory: extending a write lease failed'),
        );
      },
      Math.floor(leaseMs / 3),
    );
    extend.unref();
    try {
      return await work();
    } finally {
      clearInterval(extend);
      // A release that fails leaves the lease to expire by itself after leaseMs.
      await withinMs(redis.eval(RELEASE, 1, key, token), waitMs).catch((error: unknown) =>
        logger.warn({ err: error }, 'memory: releasing a write lease failed; it expires by itself'),
      );
    }
  }

  return { run: (userId, work) => local.run(userId, () => underLease(userId, work)) };
}

function withinMs<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
