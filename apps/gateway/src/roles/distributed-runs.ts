import { type Agent, MEMORY_EXTRACT_JOB, type PersonEraser } from '@nexus/core';
import type { ChannelHealth, JobQueue, Logger } from '@nexus/protocol';
import { createBullMqJobQueue } from '@nexus/queue-bullmq';
import type { GatewayConfig } from '../gateway-config.ts';
import { ConfigError } from '../load-config.ts';
import { type AgentRunGateway, startAgentRunGateway } from './agent-run-gateway.ts';
import { type AgentRunWorkerHost, startAgentRunWorkerHost } from './agent-run-worker-host.ts';
import { enqueueOnlyQueue } from './enqueue-only-queue.ts';
import { memoryIsShared } from './worker-extraction.ts';

export interface DistributedRuns {
  /** Core's agent in this process: runs go to workers through Redis. */
  agent: Agent;
  /** The Redis job queue, for other background jobs that should run on workers. */
  queue: JobQueue;
  /**
   * For the memory jobs, when the memory service is shared (HTTP): the Redis queue, on which the
   * `gateway` role only enqueues extraction and leaves it to the workers. Undefined with
   * in-process memory: only this process can reach it, so its jobs stay local.
   */
  memoryQueue: JobQueue | undefined;
  /** Forgets a person's jobs, reply streams and run markers on Redis. */
  eraser: PersonEraser;
  health(): ChannelHealth;
  /** Hands back runs still going after `timeoutMs` (role `all`), then closes the connections. */
  close(options: { timeoutMs: number }): Promise<void>;
}

/** Throws the configuration error a role without Redis deserves, naming the fix. */
export function assertRoleConfig(config: GatewayConfig): void {
  if (config.role !== 'all' && !config.redis.url) {
    throw new ConfigError([
      `NEXUS_ROLE=${config.role} needs NEXUS_REDIS_URL (config key "redis.url"): gateway and workers meet in Redis; set it to e.g. redis://127.0.0.1:6379, or use --role all to run everything in one process.`,
    ]);
  }
}

/** The BullMQ queue of agent runs, with the lease settings that decide how fast a dead worker's run moves. */
export function createAgentRunQueue(config: GatewayConfig, logger: Logger): JobQueue {
  if (!config.redis.url) throw new Error('createAgentRunQueue needs redis.url');
  return createBullMqJobQueue({
    connection: { url: config.redis.url },
    prefix: config.redis.prefix,
    lockDurationMs: config.worker.jobLockMs,
    stalledIntervalMs: config.worker.stalledCheckMs,
    maxStalledCount: 2,
    closeTimeoutMs: config.core.shutdownDeadlineMs,
    logger,
  });
}

/** How long the gateway waits for one turn: a full run, a crash, and a full run again. */
export function remoteTurnTimeoutMs(config: GatewayConfig): number {
  return 2 * config.model.timeoutMs + config.worker.jobLockMs + config.worker.stalledCheckMs;
}

/**
 * Role `gateway`, or role `all` with Redis: core's agent becomes the remote one. With `all`, this
 * process also takes runs (with `localAgent`) beside any other workers.
 */
export async function startDistributedRuns(options: {
  config: GatewayConfig;
  localAgent: Agent;
  logger: Logger;
}): Promise<DistributedRuns | undefined> {
  const { config, logger } = options;
  assertRoleConfig(config);
  if (config.role === 'worker' || !config.redis.url) return undefined;
  const queue = createAgentRunQueue(config, logger);
  let gateway: AgentRunGateway | undefined;
  let host: AgentRunWorkerHost | undefined;
  try {
    gateway = await startAgentRunGateway({
      redisUrl: config.redis.url,
      prefix: config.redis.prefix,
      queue,
      configured: options.localAgent.configured,
      timeoutMs: remoteTurnTimeoutMs(config),
      logger,
    });
    if (config.role === 'all') {
      host = await startAgentRunWorkerHost({
        redisUrl: config.redis.url,
        prefix: config.redis.prefix,
        queue,
        agent: options.localAgent,
        concurrency: config.worker.concurrency,
        logger: logger.child({ component: 'agent-run-worker' }),
      });
    }
  } catch (error) {
    await gateway?.close();
    await queue.close({ timeoutMs: 0 });
    throw error;
  }
  const started = gateway;
  return {
    agent: started.agent,
    queue,
    memoryQueue: memoryIsShared(config)
      ? config.role === 'gateway'
        ? enqueueOnlyQueue(queue, [MEMORY_EXTRACT_JOB], logger)
        : queue
      : undefined,
    eraser: started.eraser,
    health: () => started.health(),
    async close({ timeoutMs }) {
      await host?.close({ timeoutMs });
      await started.close();
      await queue.close({ timeoutMs: 0 });
    },
  };
}
