import { randomUUID } from 'node:crypto';
import type { Agent, TurnLimits } from '@nexus/core';
import type { JobQueue, Logger } from '@nexus/protocol';
import { agentRunKeys, type WorkerMessage, workerMessageSchema } from './agent-run-protocol.ts';
import { type AgentRunReport, startAgentRunWorker } from './agent-run-worker.ts';
import { createMessageRouter } from './message-router.ts';
import type { BudgetObserver } from './observed-turn-budget.ts';
import { createRedisClient } from './redis-client.ts';
import { openStreamInbox } from './stream-inbox.ts';

export interface AgentRunWorkerHostOptions {
  redisUrl: string;
  prefix: string;
  queue: JobQueue;
  agent: Agent;
  concurrency: number;
  /** This worker's caps per message (the gateway's apply too, whichever is lower); default DEFAULT_TURN_LIMITS. */
  turnLimits?: TurnLimits;
  budgetObserver?: BudgetObserver;
  logger: Logger;
  onRun?: (report: AgentRunReport) => void;
}

export interface AgentRunWorkerHost {
  activeRuns(): number;
  /** Stops taking jobs; runs still going after `timeoutMs` are handed back to the queue. */
  close(options: { timeoutMs: number }): Promise<void>;
}

/** The worker side of the roles: takes `agent.run` jobs, with an inbox for tool results and cancellations. */
export async function startAgentRunWorkerHost(
  options: AgentRunWorkerHostOptions,
): Promise<AgentRunWorkerHost> {
  const logger = options.logger;
  const workerId = randomUUID();
  const commands = createRedisClient({ url: options.redisUrl, name: 'nexus-worker', logger });
  const reader = createRedisClient({
    url: options.redisUrl,
    name: 'nexus-worker-inbox',
    logger,
    blocking: true,
  });
  const router = createMessageRouter<WorkerMessage>({
    schema: workerMessageSchema,
    keyOf: (message) => message.runId,
    logger,
  });
  const inboxKey = agentRunKeys(options.prefix).workerInbox(workerId);
  const inbox = await openStreamInbox({
    reader,
    commands,
    key: inboxKey,
    onMessage: router.dispatch,
    logger,
  });
  let active = 0;
  const processor = startAgentRunWorker({
    queue: options.queue,
    agent: options.agent,
    commands,
    prefix: options.prefix,
    inboxKey,
    router,
    concurrency: options.concurrency,
    ...(options.turnLimits ? { turnLimits: options.turnLimits } : {}),
    ...(options.budgetObserver ? { budgetObserver: options.budgetObserver } : {}),
    logger,
    onRunStart: () => {
      active += 1;
    },
    onRun: (report) => {
      if (report.outcome !== 'skipped') active -= 1;
      options.onRun?.(report);
    },
  });
  logger.info({ workerId, concurrency: options.concurrency }, 'taking agent runs from Redis');
  return {
    activeRuns: () => active,
    async close({ timeoutMs }) {
      await processor.stop({ timeoutMs });
      await inbox.close();
      commands.disconnect();
    },
  };
}
