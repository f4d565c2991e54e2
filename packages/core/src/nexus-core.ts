import { sharedTokenCounter } from '@nexus/limits-kit';
import { type ChannelAdapter, NexusError, silentLogger } from '@nexus/protocol';
import { resolveTurnLimits } from './cost/turn-budget.ts';
import { MODEL_ERROR_MESSAGES } from './errors/model-error.ts';
import { createIntake } from './intake/intake-pipeline.ts';
import { createConversationLanes } from './lanes/conversation-lanes.ts';
import { resolveTurnMemory } from './memory/context/turn-memory.ts';
import type { NexusCore, NexusCoreOptions, NexusCoreStats } from './nexus-core-types.ts';
import { deliverOutbound } from './outbound/deliver-outbound.ts';
import { resolveSubagentSettings } from './subagents/subagent-settings.ts';
import type { TurnDependencies } from './turn/run-turn.ts';
import { createRunningReplies } from './turn/running-replies.ts';

export { type InboxReplay, MAX_INBOX_REPLAYS } from './intake/replay-inbox.ts';
export type { NexusCore, NexusCoreOptions, NexusCoreStats } from './nexus-core-types.ts';

/** Composition and shutdown; intake is `intake/`, a turn is `turn/`, lanes are `lanes/`. */
export function createNexusCore(options: NexusCoreOptions): NexusCore {
  const logger = options.logger ?? silentLogger;
  const now = options.now ?? Date.now;
  const adapters = new Map<string, ChannelAdapter>();
  const lanes = createConversationLanes({
    maxConcurrent: options.maxConcurrentTurns ?? 32,
    maxQueuedPerLane: options.maxQueuedPerConversation ?? 100,
  });
  const shutdownController = new AbortController();
  const hardStopController = new AbortController();
  const runningReplies = createRunningReplies();
  const dependencies = turnDependencies(options, {
    logger,
    now,
    shutdownSignal: shutdownController.signal,
    hardStopSignal: hardStopController.signal,
    runningReplies,
  });
  const intake = createIntake({
    sessionStore: options.sessionStore,
    access: options.access,
    lanes,
    adapters,
    dependencies,
    deduplicationTtlMs: options.deduplicationTtlMs ?? 10 * 60_000,
    logger,
    now,
    ...(options.onTurnFinished ? { onTurnFinished: options.onTurnFinished } : {}),
  });
  let shutdownPromise: Promise<void> | undefined;

  async function runShutdown(deadlineMs: number): Promise<void> {
    intake.stopAccepting();
    const grace = Math.min(1000, deadlineMs / 4);
    const finished = await idleWithin(deadlineMs - grace);
    if (!finished) {
      logger.warn({ ...statsNow() }, 'shutdown deadline near: aborting the remaining turns');
      shutdownController.abort(
        new NexusError({
          code: 'shutting_down',
          message: MODEL_ERROR_MESSAGES.shutting_down,
          retryable: true,
        }),
      );
      if (!(await idleWithin(grace / 2))) {
        hardStopController.abort(
          new NexusError({ code: 'shutting_down', message: 'Delivery abandoned at shutdown.' }),
        );
        if (!(await idleWithin(grace / 4)))
          logger.error({ ...statsNow() }, 'turns still running at shutdown');
      }
    }
    try {
      await options.sessionStore.close();
    } catch (error) {
      logger.error({ err: error }, 'could not close the session store');
    }
    try {
      options.dailyBudget?.close();
    } catch (error) {
      logger.error({ err: error }, 'could not close the token budget store');
    }
  }

  function idleWithin(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), Math.max(0, ms));
      lanes.whenIdle().then(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  function statsNow(): NexusCoreStats {
    return {
      activeTurns: lanes.activeCount,
      queuedTurns: lanes.queuedCount,
      turnsWaitingForSlot: lanes.waitingForSlotCount,
      lanes: lanes.laneCount,
    };
  }

  return {
    registerChannel(adapter) {
      adapters.set(adapter.name, adapter);
    },
    intake: intake.take,
    cancelReply: (request) => runningReplies.cancel(request),
    deliverOutbound: (outbound) =>
      deliverOutbound(
        {
          adapters,
          ...(options.access ? { access: options.access } : {}),
          logger,
          timeoutMs: dependencies.deliveryTimeoutMs,
          stopSignal: hardStopController.signal,
        },
        outbound,
      ),
    replayInbox: () => intake.replayInbox(),
    shutdown(shutdownOptions = {}) {
      shutdownPromise ??= runShutdown(shutdownOptions.deadlineMs ?? 8000);
      return shutdownPromise;
    },
    stats: statsNow,
    whenIdle: () => lanes.whenIdle(),
  };
}

/** What every turn runs with: the options resolved to their defaults, and the core's signals. */
function turnDependencies(
  options: NexusCoreOptions,
  core: Pick<TurnDependencies, 'logger' | 'now' | 'shutdownSignal' | 'hardStopSignal' | 'runningReplies'>,
): TurnDependencies {
  return {
    ...core,
    // The store turns use, so `/new` starts the history afresh (the access step wraps it).
    sessionStore: options.access
      ? options.access.scopeSessionStore(options.sessionStore)
      : options.sessionStore,
    agent: options.agent,
    tokenCounter: Promise.resolve(options.tokenCounter ?? sharedTokenCounter()),
    historyTokenBudget: options.historyTokenBudget ?? 3000,
    historyMaxTurns: options.historyMaxTurns ?? 50,
    deliveryTimeoutMs: options.deliveryTimeoutMs ?? 30_000,
    ...(options.memory ? { memory: resolveTurnMemory(options.memory) } : {}),
    ...(options.subagents ? { subagents: resolveSubagentSettings(options.subagents) } : {}),
    turnLimits: resolveTurnLimits(options.turnLimits),
    ...(options.createTurnBudget ? { createTurnBudget: options.createTurnBudget } : {}),
    ...(options.dailyBudget ? { dailyBudget: options.dailyBudget } : {}),
    ...(options.tracing ? { tracing: options.tracing } : {}),
    ...(options.outsideTools ? { outsideTools: options.outsideTools } : {}),
    ...(options.media ? { media: options.media } : {}),
  };
}
