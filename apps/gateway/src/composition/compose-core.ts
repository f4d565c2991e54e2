import { join } from 'node:path';
import {
  type Agent,
  type ConversationNotifier,
  createNexusCore,
  createSqliteDailyTokenBudget,
  type NexusCore,
} from '@nexus/core';
import { privateFilePath } from '../data-dir/private-path.ts';
import { remindersEraser } from '../tools/reminders-eraser.ts';
import type { GatewayTracing } from '../tracing/gateway-tracing.ts';
import { createGatewayAccess } from './create-gateway-access.ts';
import { turnLimitsOf } from './distributed-runs.ts';
import { gatewayErasers } from './gateway-erasers.ts';
import type { GatewayParts } from './gateway-parts.ts';

/** The core over the gateway's stores: access with every eraser, memory, tools, budgets and tracing. */
export function composeCore(
  parts: Omit<
    GatewayParts,
    'core' | 'web' | 'webSession' | 'platformChannels' | 'postRoutes' | 'token' | 'startedAt' | 'now'
  >,
  options: { agent: Agent; notifier: ConversationNotifier; tracing: GatewayTracing | undefined },
): NexusCore {
  const { config, logger, sessionStore, memory, schedules, media, webUploads, distributed, metrics } = parts;
  const { tracing } = options;
  return createNexusCore({
    media: media.settings,
    sessionStore,
    access: createGatewayAccess({
      config,
      store: parts.accessStore,
      logger,
      memory: memory.service,
      extraCommands: schedules.commands,
      notify: options.notifier.notify,
      erasers: [
        ...gatewayErasers({
          sessionStore,
          memoryQueue: memory.jobQueue,
          media: media.store,
          webUploads: webUploads.uploads,
          ...(distributed ? { redis: distributed.eraser } : {}),
        }),
        remindersEraser(schedules.store),
      ],
    }),
    agent: distributed?.agent ?? options.agent,
    logger,
    maxConcurrentTurns: config.core.maxConcurrentTurns,
    maxQueuedPerConversation: config.core.maxQueuedPerConversation,
    historyTokenBudget: config.core.historyTokenBudget,
    onTurnFinished: (report) => metrics.observeTurn(report),
    tokenCounter: memory.tokenCounter,
    memory: memory.coreOptions,
    ...(config.model.tools && parts.model ? { subagents: {} } : {}),
    turnLimits: turnLimitsOf(config),
    ...(tracing ? { tracing } : {}),
    // A model without tool calling (NEXUS_MODEL_TOOLS=false) gets no outside tools either.
    ...(config.model.tools ? { outsideTools: parts.tools.outsideTools } : {}),
    ...(distributed ? { createTurnBudget: distributed.createTurnBudget } : {}),
    ...(config.cost.dailyTokensPerPerson !== null || config.cost.dailyTokensPerGroup !== null
      ? {
          dailyBudget: createSqliteDailyTokenBudget({
            path: privateFilePath(join(config.dataDir, 'token-budget.sqlite')),
            tokensPerDay: config.cost.dailyTokensPerPerson ?? undefined,
            tokensPerGroupPerDay: config.cost.dailyTokensPerGroup ?? undefined,
            onWriteError: (error) =>
              logger.error({ err: error }, 'could not write the daily token spend; it is kept and retried'),
          }),
        }
      : {}),
  });
}
