import { randomUUID } from 'node:crypto';
import type { Agent, CreateTurnBudget, PersonEraser } from '@nexus/core';
import type { ChannelHealth, JobQueue, Logger } from '@nexus/protocol';
import { agentRunEraser } from './agent-run-eraser.ts';
import { agentRunKeys, type RunMessage, runMessageSchema } from './agent-run-protocol.ts';
import { createMessageRouter } from './message-router.ts';
import { createRedisClient } from './redis-client.ts';
import { createRedisTurnBudget } from './redis-turn-budget.ts';
import { createRemoteAgent } from './remote-agent.ts';
import { openStreamInbox, type StreamInbox } from './stream-inbox.ts';

export interface AgentRunGatewayOptions {
  redisUrl: string;
  prefix: string;
  /** The job queue `agent.run` jobs go to (BullMQ on the same Redis). */
  queue: JobQueue;
  /** Whether a model is configured (the workers share this configuration). */
  configured: boolean;
  /** How long a turn may take, retries on other workers included. */
  timeoutMs: number;
  /** How long a turn waits for an unreachable Redis before a retryable error (default 3 min). */
  dispatchDeadlineMs?: number;
  /** A turn quiet this long checks that Redis still has its run (default 5 s). */
  probeEveryMs?: number;
  logger: Logger;
}

export interface AgentRunGateway {
  /** Pass it to core as its agent: every run goes to a worker. */
  agent: Agent;
  /** Pass it to core: a message's counters live in Redis, where the workers running it draw from them. */
  createTurnBudget: CreateTurnBudget;
  /** Forgets a person's runs on Redis (`/forget-me`). */
  eraser: PersonEraser;
  health(): ChannelHealth;
  close(): Promise<void>;
}

/** The gateway side of the roles: its reply inbox on Redis and the agent that sends runs to workers. */
export async function startAgentRunGateway(options: AgentRunGatewayOptions): Promise<AgentRunGateway> {
  const logger = options.logger.child({ component: 'agent-run-gateway' });
  const gatewayId = randomUUID();
  const commands = createRedisClient({ url: options.redisUrl, name: 'nexus-gateway', logger });
  const reader = createRedisClient({
    url: options.redisUrl,
    name: 'nexus-gateway-inbox',
    logger,
    blocking: true,
  });
  const router = createMessageRouter<RunMessage>({
    schema: runMessageSchema,
    keyOf: (message) => message.turnId,
    logger,
  });
  const inboxKey = agentRunKeys(options.prefix).gatewayInbox(gatewayId);
  // Opened in the background: with Redis down at start the gateway still serves (`/health`, and
  // `/ready` saying why it is not ready); turns wait for the inbox within their dispatch deadline.
  const opening = openStreamInbox({ reader, commands, key: inboxKey, onMessage: router.dispatch, logger });
  let inbox: StreamInbox | undefined;
  const inboxReady = opening.then((opened) => {
    inbox = opened;
    logger.info({ inbox: inboxKey }, 'reply inbox open on Redis');
  });
  inboxReady.catch((error: unknown) => logger.warn({ err: error }, 'reply inbox not opened'));
  if (commands.status !== 'ready') logger.warn({ redis: commands.status }, 'waiting for Redis');
  const agent = createRemoteAgent({
    queue: options.queue,
    router,
    inboxKey,
    inboxReady,
    commands,
    prefix: options.prefix,
    configured: options.configured,
    timeoutMs: options.timeoutMs,
    ...(options.dispatchDeadlineMs !== undefined ? { dispatchDeadlineMs: options.dispatchDeadlineMs } : {}),
    ...(options.probeEveryMs !== undefined ? { probeEveryMs: options.probeEveryMs } : {}),
    logger,
  });
  logger.info({ inbox: inboxKey }, 'agent runs go to workers through Redis');
  return {
    agent,
    createTurnBudget: (limits, scope) =>
      createRedisTurnBudget({ commands, prefix: options.prefix, limits, scope }),
    eraser: agentRunEraser({ queue: options.queue, commands, prefix: options.prefix }),
    health: () =>
      commands.status !== 'ready'
        ? { status: 'down', detail: `Redis unreachable (${commands.status}); turns wait for it` }
        : inbox
          ? { status: 'up' }
          : { status: 'down', detail: 'opening the reply inbox on Redis' },
    async close() {
      if (inbox) await inbox.close();
      else {
        // Still waiting for Redis: dropping the connections ends the wait.
        reader.disconnect();
        commands.disconnect();
        await opening.then((late) => late.close()).catch(() => undefined);
      }
      commands.disconnect();
    },
  };
}
