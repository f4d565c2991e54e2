import type { AgentRunGateway, AgentRunWorkerHost, BudgetObserver } from '@nexus/agent-redis';
import {
  type Agent,
  type CreateTurnBudget,
  MEMORY_EXTRACT_JOB,
  type PersonEraser,
  type TurnLimits,
} from '@nexus/core';
import type { ChannelHealth, JobQueue, Logger } from '@nexus/protocol';
import { retryingJobQueue } from '@nexus/queue-kit';
import type { GatewayConfig } from '../config/gateway-config.ts';
import { ConfigError } from '../config/load-config.ts';
import type { GatewayTracing } from '../tracing/gateway-tracing.ts';
import { enqueueOnlyQueue } from './enqueue-only-queue.ts';

/** Whether memory jobs can run on workers: only with a memory service every process reaches. */
export function memoryIsShared(config: GatewayConfig): boolean {
  return config.memory.mode === 'http' && config.memory.extraction;
}

export interface DistributedRuns {
  /** Core's agent in this process: runs go to workers through Redis. */
  agent: Agent;
  /** Core's message budgets: counters in Redis, shared with the workers. */
  createTurnBudget: CreateTurnBudget;
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
  if ((config.role === 'gateway' || config.role === 'worker') && !config.redis.url) {
    throw new ConfigError([
      `NEXUS_ROLE=${config.role} needs NEXUS_REDIS_URL (config key "redis.url"): gateway and workers meet in Redis; set it to e.g. redis://127.0.0.1:6379, or use --role all to run everything in one process.`,
    ]);
  }
}

/**
 * The BullMQ queue of agent runs, with the lease settings that decide how fast a dead worker's run
 * moves. BullMQ and ioredis (about 40 MB of RSS) are imported here, only when Redis is configured.
 */
export async function createAgentRunQueue(
  config: GatewayConfig,
  logger: Logger,
  tracing?: GatewayTracing,
): Promise<JobQueue> {
  if (!config.redis.url) throw new Error('createAgentRunQueue needs redis.url');
  const { createBullMqJobQueue } = await import('@nexus/queue-bullmq');
  const queue = createBullMqJobQueue({
    connection: { url: config.redis.url },
    prefix: config.redis.prefix,
    lockDurationMs: config.worker.jobLockMs,
    stalledIntervalMs: config.worker.stalledCheckMs,
    maxStalledCount: 2,
    closeTimeoutMs: config.core.shutdownDeadlineMs,
    // A finished turn is marked by its own key (see agent-run-protocol.ts), so a completed run's
    // job, its payload with the conversation in it, has nothing left to do in Redis.
    removeCompletedOf: ['agent.run'],
    logger,
  });
  return tracing ? tracing.traceJobQueue(queue) : queue;
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
  /** Tracing on: jobs carry the trace they were enqueued in (the gateway→worker hop). */
  tracing?: GatewayTracing;
  /** Counts the model requests this process makes as a worker (role `all`). */
  budgetObserver?: BudgetObserver;
}): Promise<DistributedRuns | undefined> {
  const { config, logger } = options;
  assertRoleConfig(config);
  if (config.role === 'worker' || !config.redis.url) return undefined;
  const queue = await createAgentRunQueue(config, logger, options.tracing);
  // Imported only with Redis: they hold the Redis clients (ioredis).
  const { startAgentRunGateway, startAgentRunWorkerHost } = await import('@nexus/agent-redis');
  let gateway: AgentRunGateway | undefined;
  let host: AgentRunWorkerHost | undefined;
  try {
    gateway = await startAgentRunGateway({
      redisUrl: config.redis.url,
      prefix: config.redis.prefix,
      queue,
      configured: options.localAgent.configured,
      timeoutMs: remoteTurnTimeoutMs(config),
      dispatchDeadlineMs: config.redis.waitMs,
      logger,
    });
    if (config.role === 'all') {
      host = await startAgentRunWorkerHost({
        redisUrl: config.redis.url,
        prefix: config.redis.prefix,
        queue,
        agent: options.localAgent,
        concurrency: config.worker.concurrency,
        turnLimits: turnLimitsOf(config),
        ...(options.budgetObserver ? { budgetObserver: options.budgetObserver } : {}),
        logger: logger.child({ component: 'agent-run-worker' }),
      });
    }
  } catch (error) {
    await gateway?.close();
    await queue.close({ timeoutMs: 0 });
    throw error;
  }
  const started = gateway;
  // Memory jobs enqueued while Redis restarts wait for it (the agent runs wait in the remote agent).
  const waitingQueue = retryingJobQueue(queue, { deadlineMs: config.redis.waitMs, logger });
  return {
    agent: started.agent,
    createTurnBudget: started.createTurnBudget,
    queue,
    memoryQueue: memoryIsShared(config)
      ? config.role === 'gateway'
        ? enqueueOnlyQueue(waitingQueue, [MEMORY_EXTRACT_JOB], logger)
        : waitingQueue
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

/** The caps per inbound message from the settings, as core and the workers take them. */
export function turnLimitsOf(config: GatewayConfig): TurnLimits {
  return {
    maxModelCalls: config.cost.maxModelCallsPerMessage,
    maxOutputTokens: config.cost.maxOutputTokensPerMessage,
    maxInputTokens: config.cost.maxInputTokensPerMessage,
  };
}
