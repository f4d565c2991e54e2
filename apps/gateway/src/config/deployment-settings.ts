import { z } from 'zod';
import type { SettingDefinition } from './setting-definition.ts';
import { positiveInt } from './setting-schemas.ts';

/**
 * How processes share the work: the role of this process, the Redis between gateway and workers,
 * and how workers hold and hand over agent runs.
 * Part of the settings table (`settings.ts`), in its order.
 */
export const DEPLOYMENT_SETTINGS = [
  {
    env: 'NEXUS_ROLE',
    path: 'role',
    schema: z.enum(['all', 'gateway', 'worker', 'memory']),
    defaultValue: 'all',
    description:
      'What this process runs: `all` (gateway and worker in one), `gateway` (channels, people, sessions; agent runs go to workers through Redis), `worker` (agent runs from Redis) or `memory` (the memory HTTP API on its own store, for `NEXUS_MEMORY_MODE=http`; same as `nexus memory serve`). Same as `nexus start --role`.',
    hint: 'use one of all, gateway, worker, memory',
  },
  {
    env: 'NEXUS_REDIS_URL',
    path: 'redis.url',
    schema: z.url().regex(/^rediss?:\/\//, 'expected a redis:// or rediss:// URL'),
    description:
      'Redis for agent-run jobs and reply streams between gateway and workers. Required by the `gateway` and `worker` roles; with `all`, setting it lets extra workers share the load. A process that keeps memory in Qdrant (the `memory` role, or in-process memory) takes a per-person write lease here when it is set, so several of them can share one collection. Also read from `NEXUS_REDIS_URL_FILE`.',
    hint: 'use a URL such as redis://127.0.0.1:6379 (redis://:password@host:6379 with a password)',
    secret: true,
  },
  {
    env: 'NEXUS_REDIS_PASSWORD',
    path: 'redis.password',
    schema: z.string().min(1),
    description:
      'Password for Redis (its `requirepass`), when `NEXUS_REDIS_URL` does not carry one. Also read from `NEXUS_REDIS_PASSWORD_FILE` (docker-compose.yml passes the `redis-password` secret that way).',
    hint: 'use the password Redis is configured with (requirepass)',
    secret: true,
  },
  {
    env: 'NEXUS_REDIS_PREFIX',
    path: 'redis.prefix',
    schema: z.string().regex(/^[A-Za-z0-9_-]{1,32}$/, 'expected 1–32 letters, digits, _ or -'),
    defaultValue: 'nexus',
    description: 'Prefix of every Redis key, so several Nexus deployments can share one Redis.',
    hint: 'use 1–32 letters, digits, _ or -, such as nexus',
  },
  {
    env: 'NEXUS_REDIS_WAIT_MS',
    path: 'redis.waitMs',
    schema: z.coerce.number().int().min(1000),
    defaultValue: 180_000,
    description:
      'How long a message waits for an unreachable Redis (restarting, frozen, network) before its turn ends with a retryable `queue_unavailable` error; the message is then kept in the inbox and answered at the next start. Until then the person sees "Waiting for a worker…" and the gateway retries with backoff. Also bounds how long a memory job or scheduled delivery is retried before it is logged as not enqueued.',
    hint: 'set it to at least 1000 milliseconds, e.g. 180000 (3 minutes)',
  },
  {
    env: 'NEXUS_WORKER_CONCURRENCY',
    path: 'worker.concurrency',
    schema: positiveInt,
    defaultValue: 16,
    description:
      'Agent runs one worker process handles at the same time (roles `worker` and `all` with Redis).',
    hint: 'set it to a positive integer such as 16',
  },
  {
    env: 'NEXUS_JOB_LOCK_MS',
    path: 'worker.jobLockMs',
    schema: z.coerce.number().int().min(1000),
    defaultValue: 10_000,
    description:
      'Lease a worker holds on a running job, renewed at half. When a worker dies, its agent runs move to another worker after at most this plus `NEXUS_JOB_STALLED_CHECK_MS`.',
    hint: 'set it to at least 1000 milliseconds, e.g. 10000',
  },
  {
    env: 'NEXUS_JOB_STALLED_CHECK_MS',
    path: 'worker.stalledCheckMs',
    schema: z.coerce.number().int().min(500),
    defaultValue: 5000,
    description: 'How often workers look for jobs whose lease expired (a worker that died mid-run).',
    hint: 'set it to at least 500 milliseconds, e.g. 5000',
  },
] as const satisfies readonly SettingDefinition[];
