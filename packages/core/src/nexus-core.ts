import { sharedTokenCounter, type TokenCounter } from '@nexus/limits-kit';
import {
  type CancelSink,
  type ChannelAdapter,
  type IntentSink,
  type Logger,
  NexusError,
  type OutboundIntent,
  type OutboundResult,
  silentLogger,
} from '@nexus/protocol';
import type { AccessControl } from './access/access-decision.ts';
import type { Agent } from './agent/agent.ts';
import { MODEL_ERROR_MESSAGES } from './agent/model-error.ts';
import type { DailyTokenBudget } from './cost/daily-token-budget.ts';
import { type CreateTurnBudget, resolveTurnLimits, type TurnLimits } from './cost/turn-budget.ts';
import { createIntake } from './intake/intake-pipeline.ts';
import type { InboxReplay } from './intake/replay-inbox.ts';
import { createConversationLanes } from './lanes/conversation-lanes.ts';
import type { MediaSettings } from './media/media-settings.ts';
import { resolveTurnMemory, type TurnMemoryOptions } from './memory/context/turn-memory.ts';
import { deliverOutbound } from './outbound/deliver-outbound.ts';
import type { SessionStore } from './session-store/session-store.ts';
import { resolveSubagentSettings, type SubagentSettings } from './subagents/subagent-settings.ts';
import type { OutsideTools } from './tools/outside-tools.ts';
import type { TurnTracing } from './tracing/turn-tracing.ts';
import type { TurnDependencies, TurnReport } from './turn/run-turn.ts';
import { createRunningReplies } from './turn/running-replies.ts';

export interface NexusCoreOptions {
  sessionStore: SessionStore;
  agent: Agent;
  logger?: Logger;
  /** Turns generating at once, across all conversations. */
  maxConcurrentTurns?: number;
  /** Turns waiting in one conversation; beyond it intake answers `rate_limited`. */
  maxQueuedPerConversation?: number;
  /** Tokens of history in the prompt, newest turns first. */
  historyTokenBudget?: number;
  historyMaxTurns?: number;
  /** Defaults to the o200k_base tokenizer loaded once per process; pass one to share it. */
  tokenCounter?: TokenCounter | Promise<TokenCounter>;
  /** How long a channel may keep delivering after the reply was generated. */
  deliveryTimeoutMs?: number;
  /** How long intent ids are remembered in memory (the store remembers answered ones forever). */
  deduplicationTtlMs?: number;
  now?: () => number;
  onTurnFinished?: (report: TurnReport) => void;
  /** The access step between de-duplication and the lanes; without it every intent becomes a turn. */
  access?: AccessControl;
  /** Memory in the loop: context before each reply, memory tools, extraction and summaries after. */
  memory?: TurnMemoryOptions;
  /** Gives the agent `delegate`; unset fields take `DEFAULT_SUBAGENT_SETTINGS`. */
  subagents?: Partial<SubagentSettings>;
  /** Caps of one inbound message over every model call it causes; unset fields take `DEFAULT_TURN_LIMITS`. */
  turnLimits?: Partial<TurnLimits>;
  /** Where a message's counters live (a distributed deployment shares them through Redis). */
  createTurnBudget?: CreateTurnBudget;
  /** Tokens per person per day; the core closes it at shutdown. */
  dailyBudget?: DailyTokenBudget;
  /**
   * Set when tracing is on: each intake opens a trace (`nexus.intake` → access → turn → memory
   * step, model calls, delivery). Unset, no span is made.
   */
  tracing?: TurnTracing;
  /** Tools from outside the core (MCP servers, schedules) for a turn's main run. */
  outsideTools?: OutsideTools;
  /** How attachments are handled (docs/media.md); unset, they get honest refusals. */
  media?: MediaSettings;
}

export { type InboxReplay, MAX_INBOX_REPLAYS } from './intake/replay-inbox.ts';

export interface NexusCoreStats {
  activeTurns: number;
  /** Turns accepted and not started: behind their conversation's running turn, or for a slot. */
  queuedTurns: number;
  /** Conversations whose next turn waits for a slot: every `maxConcurrentTurns` slot is taken. */
  turnsWaitingForSlot: number;
  lanes: number;
}

/** The daemon core: intake, conversation lanes, turns and their delivery, graceful shutdown. */
export interface NexusCore {
  /** Makes an adapter the destination of replies for its channel name. Starting it is the caller's job. */
  registerChannel(adapter: ChannelAdapter): void;
  /**
   * Validates, de-duplicates and writes an intent to the inbox, then queues it; `accepted` means
   * it survives a restart. Answers before the reply is generated.
   */
  intake: IntentSink;
  /**
   * Stops a reply still being generated (a person pressed Stop): the model call is aborted and
   * the reply ends, marked stopped, with the text the person was shown, which is what is stored,
   * charged and learned from. Hand it to channels as `ChannelStartOptions.cancel`.
   */
  cancelReply: CancelSink;
  /** A message the assistant starts (a reminder): access-checked now, then delivered like a reply. */
  deliverOutbound(outbound: OutboundIntent): Promise<OutboundResult>;
  /**
   * Queues the inbox entries an earlier process accepted and did not finish, in their original
   * order per conversation. Call once, after every channel is registered and before any starts
   * taking messages; entries of channels not registered stay in the inbox.
   */
  replayInbox(): Promise<InboxReplay>;
  /**
   * Stops intake, lets running and queued turns finish until shortly before the deadline, then
   * aborts the rest (their channels get a retryable `shutting_down` error) and closes the store.
   */
  shutdown(options?: { deadlineMs?: number }): Promise<void>;
  stats(): NexusCoreStats;
  whenIdle(): Promise<void>;
}

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
