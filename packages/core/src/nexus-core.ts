import { randomUUID } from 'node:crypto';
import {
  type ChannelAdapter,
  type IntakeResult,
  type Intent,
  type IntentSink,
  intentSchema,
  type Logger,
  NexusError,
  silentLogger,
} from '@nexus/protocol';
import type { AccessControl, AccessDecision, AccessReply } from './access/access-decision.ts';
import { answerWithoutModel } from './access/answer-without-model.ts';
import type { Agent } from './agent.ts';
import { createConversationLanes, type LaneTask } from './conversation-lanes.ts';
import { createIntentDeduplicator } from './intent-deduplicator.ts';
import { resolveTurnMemory, type TurnMemoryOptions } from './memory-step/turn-memory.ts';
import { describeFailure, MODEL_ERROR_MESSAGES } from './model-error.ts';
import { runTurn, type TurnDependencies, type TurnReport } from './run-turn.ts';
import type { AdmitIntentOptions, InboxEntry, SessionStore } from './session-store.ts';
import { resolveSubagentSettings, type SubagentSettings } from './subagents/subagent-settings.ts';
import { loadTokenCounter, type TokenCounter } from './token-counter.ts';

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
  generateId?: () => string;
  onTurnFinished?: (report: TurnReport) => void;
  /** The access step between de-duplication and the lanes; without it every intent becomes a turn. */
  access?: AccessControl;
  /** Memory in the loop: context before each reply, memory tools, extraction and summaries after. */
  memory?: TurnMemoryOptions;
  /** Gives the agent `delegate`; unset fields take `DEFAULT_SUBAGENT_SETTINGS`. */
  subagents?: Partial<SubagentSettings>;
}

export interface NexusCoreStats {
  activeTurns: number;
  queuedTurns: number;
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
   * Queues the inbox entries an earlier process accepted and did not finish, in their original
   * order per conversation. Call once, after every channel is registered and before any starts
   * taking messages; entries of channels not registered stay in the inbox.
   */
  replayInbox(): Promise<{ replayed: number; waiting: number }>;
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
  const lanes = createConversationLanes({
    maxConcurrent: options.maxConcurrentTurns ?? 32,
    maxQueuedPerLane: options.maxQueuedPerConversation ?? 100,
  });
  const shutdownController = new AbortController();
  const hardStopController = new AbortController();
  const tokenCounter = Promise.resolve(options.tokenCounter ?? loadTokenCounter());
  const dependencies: TurnDependencies = {
    sessionStore: options.access
      ? options.access.scopeSessionStore(options.sessionStore)
      : options.sessionStore,
    agent: options.agent,
    tokenCounter,
    historyTokenBudget: options.historyTokenBudget ?? 3000,
    historyMaxTurns: options.historyMaxTurns ?? 50,
    now,
    generateId: options.generateId ?? randomUUID,
    logger,
    shutdownSignal: shutdownController.signal,
    hardStopSignal: hardStopController.signal,
    deliveryTimeoutMs: options.deliveryTimeoutMs ?? 30_000,
    ...(options.memory ? { memory: resolveTurnMemory(options.memory) } : {}),
    ...(options.subagents ? { subagents: resolveSubagentSettings(options.subagents) } : {}),
  };
  let accepting = true;
  let shutdownPromise: Promise<void> | undefined;

  const intake: IntentSink = async (input) => {
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
      logger.error({ error: describeFailure(error) }, 'session store failed during intake');
      return storeUnavailable();
    }
    const decision = await decideAccess(intent);
    if ('status' in decision) {
      if (decision.status === 'rejected') deduplicator.release(dedupeKey);
      return decision;
    }
    const conversationKey = `${intent.channel}:${intent.conversation.id}`;
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
      logger.error({ error: describeFailure(error) }, 'could not write the intent to the inbox');
      return storeUnavailable();
    }
    if (admitted === 'duplicate') return { status: 'duplicate' };
    lanes.enqueue(
      conversationKey,
      decision.action === 'reply'
        ? replyTask(entry, adapter, decision.reply)
        : turnTask(decision.intent, adapter, entry.acceptedAt),
      // Room was checked before the inbox write; what is durable is never refused afterwards.
      { overLimit: true },
    );
    return { status: 'accepted' };
  };

  /** A model turn in its lane; a retryable failure other than shutdown lets the resend in again. */
  function turnTask(intent: Intent, adapter: ChannelAdapter, enqueuedAt: number): LaneTask {
    return async () => {
      const result = await runTurn(intent, enqueuedAt, adapter, dependencies);
      try {
        options.onTurnFinished?.(result.report);
      } catch (error) {
        logger.warn({ error: describeFailure(error) }, 'onTurnFinished threw');
      }
      const releaseAfter = result.retryableFailure && result.report.errorCode !== 'shutting_down';
      const drain = releaseAfter
        ? result.drain.then(() => deduplicator.release(dedupeKeyOf(intent.channel, intent.id)))
        : result.drain;
      return { drain };
    };
  }

  /** An answer without the model: kept with the entry before delivery, finished once delivered. */
  function replyTask(
    entry: Pick<InboxEntry, 'channel' | 'intentId' | 'decided'>,
    adapter: ChannelAdapter,
    reply: AccessReply,
    keep = true,
  ): LaneTask {
    const key = { channel: entry.channel, intentId: entry.intentId };
    return async () =>
      answerWithoutModel({
        intent: entry.decided,
        reply,
        adapter,
        replyId: dependencies.generateId(),
        logger,
        hardStopSignal: hardStopController.signal,
        deliveryTimeoutMs: dependencies.deliveryTimeoutMs,
        ...(keep ? { onAnswer: (replyText) => options.sessionStore.recordReply({ ...key, replyText }) } : {}),
        onDelivered: () => options.sessionStore.finishIntent(key),
      });
  }

  /** The lane task that finishes an entry left by an earlier process. */
  function replayTask(entry: InboxEntry, adapter: ChannelAdapter): LaneTask {
    if (entry.kind === 'turn') return turnTask(entry.decided, adapter, now());
    const { replyText } = entry;
    if (replyText !== undefined) return replyTask(entry, adapter, async () => replyText, false);
    // The command's answer was never worked out, so its effect (kept in the access store) may or
    // may not have happened: decide again, as if the message had just arrived.
    return async () => {
      const decision = await decideAccess(entry.intent);
      if ('status' in decision) {
        logger.warn({ intentId: entry.intentId, status: decision.status }, 'replayed command not answered');
        await options.sessionStore.finishIntent(entry).catch((error: unknown) => {
          logger.error({ error: describeFailure(error) }, 'could not finish the inbox entry');
        });
        return undefined;
      }
      if (decision.action === 'reply')
        return replyTask({ ...entry, decided: decision.intent }, adapter, decision.reply)();
      return turnTask(decision.intent, adapter, now())();
    };
  }

  async function replayInbox(): Promise<{ replayed: number; waiting: number }> {
    let entries: InboxEntry[];
    try {
      entries = await options.sessionStore.unfinishedIntents();
    } catch (error) {
      logger.error({ error: describeFailure(error) }, 'could not read the inbox; nothing replayed');
      return { replayed: 0, waiting: 0 };
    }
    let replayed = 0;
    let waiting = 0;
    for (const entry of entries) {
      const adapter = adapters.get(entry.channel);
      // Not registered (a channel switched off): the entry waits for a start that has it.
      if (!adapter) waiting += 1;
      // Claimed already: accepted by this process and in its lane.
      else if (deduplicator.claim(dedupeKeyOf(entry.channel, entry.intentId))) {
        lanes.enqueue(entry.conversationKey, replayTask(entry, adapter), { overLimit: true });
        replayed += 1;
      }
    }
    if (entries.length > 0)
      logger.info({ replayed, waiting }, 'replaying unfinished messages from the inbox');
    return { replayed, waiting };
  }

  /** Runs the access step; a refusal or a silent drop comes back as the intake result. */
  async function decideAccess(
    intent: Intent,
  ): Promise<Exclude<AccessDecision, { action: 'reject' | 'ignore' }> | IntakeResult> {
    if (!options.access) return { action: 'turn', intent };
    try {
      const decision = await options.access.check(intent);
      if (decision.action === 'reject')
        return { status: 'rejected', code: decision.code, message: decision.message };
      if (decision.action === 'ignore') return { status: 'accepted' };
      return decision;
    } catch (error) {
      logger.error({ error: describeFailure(error) }, 'access check failed during intake');
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
      logger.error({ error: describeFailure(error) }, 'could not close the session store');
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
    return { activeTurns: lanes.activeCount, queuedTurns: lanes.queuedCount, lanes: lanes.laneCount };
  }

  return {
    registerChannel(adapter) {
      adapters.set(adapter.name, adapter);
    },
    intake,
    replayInbox,
    shutdown(shutdownOptions = {}) {
      shutdownPromise ??= runShutdown(shutdownOptions.deadlineMs ?? 8000);
      return shutdownPromise;
    },
    stats: statsNow,
    whenIdle: () => lanes.whenIdle(),
  };
}

function dedupeKeyOf(channel: string, intentId: string): string {
  return `${channel}\u0000${intentId}`;
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
