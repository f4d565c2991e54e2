import { sharedTokenCounter, type TokenCounter } from '@nexus/limits-kit';
import {
  type CancelSink,
  type ChannelAdapter,
  type IntakeResult,
  type Intent,
  type IntentInput,
  type IntentSink,
  intentSchema,
  type Logger,
  NexusError,
  type OutboundIntent,
  type OutboundResult,
  type Revision,
  silentLogger,
} from '@nexus/protocol';
import type { AccessControl } from './access/access-decision.ts';
import type { Agent } from './agent/agent.ts';
import { createConversationLanes } from './lanes/conversation-lanes.ts';
import type { DailyTokenBudget } from './cost/daily-token-budget.ts';
import { type CreateTurnBudget, resolveTurnLimits, type TurnLimits } from './cost/turn-budget.ts';
import {
  type AnsweredDecision,
  createInboxLaneTasks,
  dedupeKeyOf,
  type InboxReplay,
} from './intake/inbox-lane-tasks.ts';
import { createIntakeOrder } from './intake/intake-order.ts';
import { createIntentDeduplicator } from './intake/intent-deduplicator.ts';
import type { MediaSettings } from './media/media-settings.ts';
import { resolveTurnMemory, type TurnMemoryOptions } from './memory/context/turn-memory.ts';
import { MODEL_ERROR_MESSAGES } from './agent/model-error.ts';
import { deliverOutbound } from './outbound/deliver-outbound.ts';
import type { AdmitIntentOptions, SessionStore } from './session-store/session-store.ts';
import { resolveSubagentSettings, type SubagentSettings } from './subagents/subagent-settings.ts';
import type { OutsideTools } from './tools/outside-tools.ts';
import { inSpan } from './tracing/in-span.ts';
import { SPAN } from './tracing/turn-spans.ts';
import { spanIdOf, type TurnTracing } from './tracing/turn-tracing.ts';
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

export { type InboxReplay, MAX_INBOX_REPLAYS } from './intake/inbox-lane-tasks.ts';

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

export function createNexusCore(options: NexusCoreOptions): NexusCore {
  const logger = options.logger ?? silentLogger;
  const now = options.now ?? Date.now;
  const adapters = new Map<string, ChannelAdapter>();
  const deduplicator = createIntentDeduplicator({
    ttlMs: options.deduplicationTtlMs ?? 10 * 60_000,
    maxEntries: 100_000,
    now,
  });
  const intakeOrder = createIntakeOrder();
  const lanes = createConversationLanes({
    maxConcurrent: options.maxConcurrentTurns ?? 32,
    maxQueuedPerLane: options.maxQueuedPerConversation ?? 100,
  });
  const shutdownController = new AbortController();
  const hardStopController = new AbortController();
  const runningReplies = createRunningReplies();
  const tokenCounter = Promise.resolve(options.tokenCounter ?? sharedTokenCounter());
  const dependencies: TurnDependencies = {
    sessionStore: options.access
      ? options.access.scopeSessionStore(options.sessionStore)
      : options.sessionStore,
    agent: options.agent,
    tokenCounter,
    historyTokenBudget: options.historyTokenBudget ?? 3000,
    historyMaxTurns: options.historyMaxTurns ?? 50,
    now,
    logger,
    shutdownSignal: shutdownController.signal,
    hardStopSignal: hardStopController.signal,
    deliveryTimeoutMs: options.deliveryTimeoutMs ?? 30_000,
    ...(options.memory ? { memory: resolveTurnMemory(options.memory) } : {}),
    ...(options.subagents ? { subagents: resolveSubagentSettings(options.subagents) } : {}),
    turnLimits: resolveTurnLimits(options.turnLimits),
    ...(options.createTurnBudget ? { createTurnBudget: options.createTurnBudget } : {}),
    ...(options.dailyBudget ? { dailyBudget: options.dailyBudget } : {}),
    ...(options.tracing ? { tracing: options.tracing } : {}),
    ...(options.outsideTools ? { outsideTools: options.outsideTools } : {}),
    ...(options.media ? { media: options.media } : {}),
    runningReplies,
  };
  const inbox = createInboxLaneTasks({
    sessionStore: options.sessionStore,
    dependencies,
    lanes,
    deduplicator,
    adapters,
    logger,
    now,
    decideAccess,
    ...(options.onTurnFinished ? { onTurnFinished: options.onTurnFinished } : {}),
  });
  let accepting = true;
  let shutdownPromise: Promise<void> | undefined;

  const intake: IntentSink = (input) => {
    const tracer = options.tracing?.tracer;
    if (!tracer) return takeIntent(input);
    const intentId =
      input && typeof input === 'object'
        ? spanIdOf(options.tracing, String((input as { id?: unknown }).id))
        : undefined;
    const attributes =
      input && typeof input === 'object'
        ? {
            'nexus.channel': String((input as { channel?: unknown }).channel),
            ...(intentId ? { 'nexus.intent_id': intentId } : {}),
          }
        : {};
    return inSpan(tracer, SPAN.intake, attributes, async (span) => {
      const result = await takeIntent(input);
      span?.setAttribute('nexus.intake.status', result.status);
      if (result.status === 'rejected') span?.setAttribute('nexus.intake.code', result.code);
      return result;
    });
  };

  async function takeIntent(input: IntentInput): Promise<IntakeResult> {
    if (!accepting) return shuttingDown();
    const parsed = intentSchema.safeParse(input);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue && issue.path.length > 0 ? issue.path.join('.') : 'intent';
      return {
        status: 'rejected',
        code: 'invalid_intent',
        message: `${field}: ${issue?.message ?? 'invalid'}`,
      };
    }
    const intent = parsed.data;
    return intakeOrder.run(conversationKeyOf(intent), () => admit(intent));
  }

  /** De-duplicates, decides access and writes the inbox entry; one at a time per conversation. */
  async function admit(intent: Intent): Promise<IntakeResult> {
    const adapter = adapters.get(intent.channel);
    if (!adapter) {
      return {
        status: 'rejected',
        code: 'channel_unavailable',
        message: `No channel named "${intent.channel}" is registered.`,
      };
    }
    const dedupeKey = dedupeKeyOf(intent.channel, intent.id);
    if (!deduplicator.claim(dedupeKey)) return { status: 'duplicate' };
    try {
      if (await options.sessionStore.hasIntent({ channel: intent.channel, intentId: intent.id }))
        return { status: 'duplicate' };
    } catch (error) {
      deduplicator.release(dedupeKey);
      logger.error({ err: error }, 'session store failed during intake');
      return storeUnavailable();
    }
    let decision: AnsweredDecision | IntakeResult;
    try {
      decision = intent.revises
        ? await decideRevisionAccess(intent, intent.revises)
        : await decideAccess(intent);
    } catch (error) {
      deduplicator.release(dedupeKey);
      logger.error({ err: error }, 'session store failed during intake');
      return storeUnavailable();
    }
    if ('status' in decision) {
      if (decision.status === 'rejected') deduplicator.release(dedupeKey);
      return decision;
    }
    const conversationKey = conversationKeyOf(intent);
    const refusal = !accepting ? shuttingDown() : lanes.hasRoom(conversationKey) ? undefined : laneFull();
    if (refusal) {
      deduplicator.release(dedupeKey);
      return refusal;
    }
    const entry: AdmitIntentOptions = {
      channel: intent.channel,
      intentId: intent.id,
      conversationKey,
      kind: decision.action,
      intent,
      decided: decision.intent,
      acceptedAt: now(),
    };
    let admitted: 'admitted' | 'duplicate';
    try {
      // The de-dupe and the inbox write are one transaction: from here the intent survives a restart.
      admitted = await options.sessionStore.admitIntent(entry);
    } catch (error) {
      deduplicator.release(dedupeKey);
      logger.error({ err: error }, 'could not write the intent to the inbox');
      return storeUnavailable();
    }
    if (admitted === 'duplicate') return { status: 'duplicate' };
    const revises = decision.intent.revises;
    // Only an edit or a delete replaces the waiting message; another answer or a version does not.
    if (revises && (revises.kind === 'edit' || revises.kind === 'delete'))
      inbox.withdraw(intent.channel, revises.targetIntentId, decision.intent.userId);
    inbox.enqueueAdmitted(entry, adapter, decision);
    return { status: 'accepted' };
  }

  /**
   * An edit or delete of a message core has seen (answered or waiting) goes through the access
   * step's revision rules. An edit of a message never seen is a new message under every rule of
   * one (mention in groups, commands, pairing), keeping `revises` so its reply threads under it;
   * a delete of one has nothing to do.
   */
  async function decideRevisionAccess(
    intent: Intent,
    revises: Revision,
  ): Promise<AnsweredDecision | IntakeResult> {
    const seen = await options.sessionStore.hasIntent({
      channel: intent.channel,
      intentId: revises.targetIntentId,
    });
    if (seen) return decideAccess(intent);
    if (revises.kind === 'delete' || revises.kind === 'choose') return { status: 'accepted' };
    const { revises: _edit, ...asNew } = intent;
    const decision = await decideAccess(asNew);
    if ('status' in decision || decision.action !== 'turn') return decision;
    return { ...decision, intent: { ...decision.intent, revises } };
  }

  /** Runs the access step; a refusal or a silent drop comes back as the intake result. */
  async function decideAccess(intent: Intent): Promise<AnsweredDecision | IntakeResult> {
    if (!options.access) return { action: 'turn', intent };
    const access = options.access;
    try {
      const decision = await inSpan(options.tracing?.tracer, SPAN.access, {}, async (span) => {
        const decided = await access.check(intent);
        span?.setAttribute('nexus.access.action', decided.action);
        return decided;
      });
      if (decision.action === 'reject')
        return { status: 'rejected', code: decision.code, message: decision.message };
      if (decision.action === 'ignore') return { status: 'accepted' };
      return decision;
    } catch (error) {
      logger.error({ err: error }, 'access check failed during intake');
      return { status: 'rejected', code: 'internal', message: 'The access store is not available.' };
    }
  }

  async function runShutdown(deadlineMs: number): Promise<void> {
    accepting = false;
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
    intake,
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
    replayInbox: () => inbox.replayInbox(),
    shutdown(shutdownOptions = {}) {
      shutdownPromise ??= runShutdown(shutdownOptions.deadlineMs ?? 8000);
      return shutdownPromise;
    },
    stats: statsNow,
    whenIdle: () => lanes.whenIdle(),
  };
}

function shuttingDown(): IntakeResult {
  return {
    status: 'rejected',
    code: 'shutting_down',
    message: 'The assistant is shutting down; try again shortly.',
    retryable: true,
  };
}

/** The store is busy or full: not taken, so the platform keeps the message and redelivers it. */
function storeUnavailable(): IntakeResult {
  return {
    status: 'rejected',
    code: 'internal',
    message: 'Messages cannot be stored right now; try again shortly.',
    retryable: true,
  };
}

function laneFull(): IntakeResult {
  return {
    status: 'rejected',
    code: 'rate_limited',
    message: 'Too many messages are waiting in this conversation; please wait for the replies.',
    retryable: true,
  };
}

const conversationKeyOf = (intent: Intent): string => `${intent.channel}:${intent.conversation.id}`;
