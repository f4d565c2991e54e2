import type { TokenCounter } from '@nexus/limits-kit';
import {
  type ChannelAdapter,
  conversationRefOf,
  type Intent,
  type Logger,
  type NexusError,
} from '@nexus/protocol';
import type { Agent } from './agent.ts';
import { budgetNote } from './cost/budget-note.ts';
import { chargeDailyBudget, checkDailyBudget, DailyBudgetRefusal } from './cost/daily-budget-step.ts';
import { type DailyTokenBudget, dailyBudgetReply } from './cost/daily-token-budget.ts';
import {
  type BudgetStopReason,
  type CreateTurnBudget,
  createTurnBudget,
  type TurnLimits,
  type TurnSpend,
} from './cost/turn-budget.ts';
import { historyWithinBudget } from './history-within-budget.ts';
import { mediaPrefix, storedUserText } from './media/media-prefix.ts';
import { DEFAULT_MEDIA_SETTINGS, type MediaSettings } from './media/media-settings.ts';
import { prepareTurnMedia, type TurnMedia } from './media/prepare-turn-media.ts';
import type { MemoryStepReport } from './memory/run-memory-step.ts';
import { enqueueAfterTurn, loadTurnMemory, type TurnMemory } from './memory/turn-memory.ts';
import { toModelError } from './model-error.ts';
import { replyIdFor } from './reply-id.ts';
import { createReplyStream } from './reply-stream.ts';
import type { SessionStore } from './session-store.ts';
import type { SubagentSettings } from './subagents/subagent-settings.ts';
import { toolsForTurn } from './tools/create-turn-tools.ts';
import type { OutsideTools } from './tools/outside-tools.ts';
import { traceDelivery, traceMemoryStep, traceTurn } from './tracing/turn-spans.ts';
import type { TurnTracing } from './tracing/turn-tracing.ts';

/** What one turn did, for metrics. Times are in milliseconds of the core's clock. */
export interface TurnReport {
  conversationKey: string;
  channel: string;
  intentId: string;
  outcome: 'ok' | 'error' | 'aborted';
  errorCode?: string;
  /** From intake to the start of the turn. */
  queuedMs: number;
  /** From the start of the turn to the end of generation (delivery may still be running). */
  durationMs: number;
  /** From the start of the turn to the first text delta. */
  firstDeltaMs?: number;
  /** What the memory step did, when memory is configured. */
  memory?: MemoryStepReport;
  /** Model requests and tokens of the whole message, subagents included. */
  spend: TurnSpend;
  /** Set when a cap cut the reply short, or the person's daily allowance refused the turn. */
  budgetExhausted?: BudgetStopReason | 'daily_tokens';
}

export interface TurnDependencies {
  sessionStore: SessionStore;
  agent: Agent;
  tokenCounter: Promise<TokenCounter>;
  historyTokenBudget: number;
  historyMaxTurns: number;
  now: () => number;
  logger: Logger;
  /** Aborted when shutdown gives up waiting: running turns stop with `shutting_down`. */
  shutdownSignal: AbortSignal;
  /** Aborted at the very end of shutdown: deliveries still running are abandoned. */
  hardStopSignal: AbortSignal;
  /** How long delivery may go on after generation ended before the lane moves on. */
  deliveryTimeoutMs: number;
  memory?: TurnMemory;
  /** Set: the agent gets `delegate`. */
  subagents?: SubagentSettings;
  /** Caps of one inbound message over all the model calls it causes. */
  turnLimits: TurnLimits;
  /** Where a message's counters live; in-process unless a distributed deployment shares them. */
  createTurnBudget?: CreateTurnBudget;
  /** Tokens per person per day; unset, no daily limit. */
  dailyBudget?: DailyTokenBudget;
  /** Set when tracing is on: the turn, its memory step and its delivery become spans. */
  tracing?: TurnTracing;
  /** Tools from outside the core for the main run (MCP servers, schedules). */
  outsideTools?: OutsideTools;
  /** Attachments: size cap, vision, transcription, documents. Unset: attachments get honest refusals. */
  media?: MediaSettings;
}

/**
 * A turn that answers an edited message rather than a new one (docs/conversations.md). The
 * channel is handed the edited message's id as `ConversationRef.intentId` (to thread the reply
 * under it), while the reply id stays that of the edit, so it differs from the first reply's.
 */
export interface TurnRevision {
  /** The message edited, under whose id the turn is stored. */
  targetIntentId: string;
  /** `rerun`: it was the newest turn, whose exchange this one replaces; `new`: never answered. */
  mode: 'rerun' | 'new';
  /** What it said before (rerun), so extraction can correct what it learned from the old words. */
  previousUserText?: string;
}

export interface TurnResult {
  report: TurnReport;
  /** Resolves when the adapter finished delivering (or was given up on) and the turn was stored. */
  drain: Promise<void>;
  /** The turn failed in a way a retry may fix; it was not stored, so a redelivery is not a duplicate. */
  retryableFailure: boolean;
}

/**
 * One turn: history within the token budget, the agent's streamed reply as ReplyEvents handed
 * to the channel while they are produced, then (in `drain`, once delivered) the turn stored with
 * its inbox entry finished and the memory jobs enqueued. A turn aborted by shutdown stays in the
 * inbox; after another retryable failure the entry is removed so the person's resend is taken.
 * The memory step runs right after history is read, under its own deadline; its block goes into
 * the system prompt, ahead of history.
 */
export function runTurn(
  intent: Intent,
  enqueuedAt: number,
  adapter: ChannelAdapter,
  dependencies: TurnDependencies,
  revision?: TurnRevision,
): Promise<TurnResult> {
  return traceTurn(dependencies.tracing?.tracer, intent, () =>
    runTracedTurn(intent, enqueuedAt, adapter, dependencies, revision),
  );
}

async function runTracedTurn(
  receivedIntent: Intent,
  enqueuedAt: number,
  adapter: ChannelAdapter,
  dependencies: TurnDependencies,
  revision: TurnRevision | undefined,
): Promise<TurnResult> {
  const { now, sessionStore, agent } = dependencies;
  const startedAt = now();
  /** After the media step: the text includes what voice notes said, for the model, history and memory. */
  let intent = receivedIntent;
  let media: TurnMedia | undefined;
  const conversationKey = `${intent.channel}:${intent.conversation.id}`;
  const logger = dependencies.logger.child({ conversationId: conversationKey, intentId: intent.id });
  const events = createReplyStream();
  const deliveryController = new AbortController();
  const stopDelivery = () => deliveryController.abort(dependencies.hardStopSignal.reason);
  let deliveredFully = false;
  /** Set once generation ended: stores the outcome (at most once). */
  let finishTurn: (() => Promise<void>) | undefined;
  dependencies.hardStopSignal.addEventListener('abort', stopDelivery, { once: true });
  const delivered = Promise.resolve()
    .then(() =>
      traceDelivery(dependencies.tracing?.tracer, intent.channel, () =>
        adapter.deliver({
          conversation: revision
            ? { ...conversationRefOf(intent), intentId: revision.targetIntentId, revisionIntentId: intent.id }
            : conversationRefOf(intent),
          events,
          abortSignal: deliveryController.signal,
        }),
      ),
    )
    .then(
      () => {
        deliveredFully = !deliveryController.signal.aborted;
        // Stored in the very continuation that learns of the delivery: the fewer steps between
        // the channel having the reply and the commit, the smaller a crash's window to repeat it.
        return finishTurn?.();
      },
      (error: unknown) => {
        logger.error({ channel: intent.channel, err: error }, 'channel failed to deliver the reply');
        return finishTurn?.();
      },
    );

  events.push({ type: 'typing' });
  const replyId = replyIdFor(intent);
  let replyText = '';
  /** Files sent with the reply; history keeps their names, not their bytes. */
  const mediaNames: string[] = [];
  let started = false;
  let firstDeltaAt: number | undefined;
  let failure: NexusError | undefined;
  let tokenCounter: TokenCounter | undefined;
  let memoryReport: MemoryStepReport | undefined;
  const budget = (dependencies.createTurnBudget ?? createTurnBudget)(dependencies.turnLimits, {
    id: replyId,
    channel: intent.channel,
  });
  let budgetExhausted: TurnReport['budgetExhausted'];
  const allowance = checkDailyBudget(dependencies.dailyBudget, intent.userId, startedAt, logger);
  try {
    if (dependencies.shutdownSignal.aborted) throw dependencies.shutdownSignal.reason;
    if (allowance && !allowance.allowed) {
      // Refused before any model call: no memory step, no extraction afterwards.
      budgetExhausted = 'daily_tokens';
      replyText = dailyBudgetReply(allowance, startedAt);
      throw new DailyBudgetRefusal();
    }
    if (intent.attachments.length > 0) {
      media = await prepareTurnMedia({
        intent,
        adapter,
        settings: dependencies.media ?? DEFAULT_MEDIA_SETTINGS,
        logger,
        abortSignal: dependencies.shutdownSignal,
      });
      intent = { ...intent, text: media.text };
      if (media.problemsOnly) {
        // Nothing the model could use: the honest reply alone, no model call, no extraction.
        replyText = media.problems.join('\n');
        throw new MediaOnlyReply();
      }
    }
    // Re-answering an edit: the exchange being replaced is not history; everything before it is.
    const historyLoaded = sessionStore
      .history({ conversationKey, limit: dependencies.historyMaxTurns })
      .then((loaded) =>
        revision?.mode === 'rerun'
          ? loaded.filter((turn) => turn.intentId !== revision.targetIntentId)
          : loaded,
      );
    const memory = dependencies.memory;
    const [turns, counter, memoryStep] = await Promise.all([
      historyLoaded,
      dependencies.tokenCounter,
      memory
        ? Promise.all([historyLoaded, dependencies.tokenCounter]).then(([loadedTurns, loadedCounter]) =>
            traceMemoryStep(dependencies.tracing?.tracer, () =>
              loadTurnMemory({
                memory,
                intent,
                conversationKey,
                turns: loadedTurns,
                onSlow: () => events.push({ type: 'status', text: memory.statusText }),
                tokenCounter: loadedCounter,
                now,
                logger,
                abortSignal: dependencies.shutdownSignal,
              }),
            ),
          )
        : undefined,
    ]);
    tokenCounter = counter;
    memoryReport = memoryStep?.report;
    const history = historyWithinBudget({
      turns,
      tokenBudget: dependencies.historyTokenBudget,
      tokenCounter: counter,
    });
    const tools = toolsForTurn({
      ...(memory ? { memory } : {}),
      ...(dependencies.subagents ? { subagents: dependencies.subagents } : {}),
      agent,
      budget,
      intent,
      outside: dependencies.outsideTools?.({ intent, conversationKey }),
      sessionId: conversationKey,
      tokenCounter: counter,
      now,
      logger,
    });
    // What the person is shown first: what was heard, and what could not be used.
    const prefix = media ? mediaPrefix(media) : '';
    if (prefix !== '') {
      started = true;
      events.push({ type: 'reply.start', replyId });
      events.push({ type: 'reply.delta', replyId, text: prefix });
    }
    for await (const part of agent.run({
      history: history.messages,
      userText: intent.text,
      ...(media && media.images.length > 0 ? { userImages: media.images } : {}),
      ...(media && media.documents.length > 0 ? { userDocuments: media.documents } : {}),
      userId: intent.userId,
      ...(memoryStep?.block ? { systemContext: memoryStep.block } : {}),
      ...(tools ? { tools } : {}),
      abortSignal: dependencies.shutdownSignal,
      budget,
    })) {
      // A status (waiting for a worker) is shown before the reply, not inside it.
      if (!started && part.type !== 'status') {
        started = true;
        events.push({ type: 'reply.start', replyId });
      }
      if (part.type === 'text-delta') {
        firstDeltaAt ??= now();
        if (replyText === '') replyText = prefix;
        replyText += part.text;
        events.push({ type: 'reply.delta', replyId, text: part.text });
      } else if (part.type === 'media') {
        events.push({ type: 'reply.media', replyId, media: part.media });
        mediaNames.push(part.media.name);
      } else if (part.type === 'status') {
        events.push({ type: 'status', text: part.text });
      } else {
        replyText = prefix + part.text;
        if (part.stopped) {
          // Cut short by the message's caps: what was generated stays, with an honest note.
          budgetExhausted = part.stopped;
          const note = budgetNote(part.stopped, dependencies.turnLimits, replyText);
          if (!started) {
            started = true;
            events.push({ type: 'reply.start', replyId });
          }
          events.push({ type: 'reply.delta', replyId, text: note });
          replyText += note;
        }
      }
    }
    if (!started) events.push({ type: 'reply.start', replyId });
    events.push({ type: 'reply.end', replyId, text: replyText });
  } catch (error) {
    if (error instanceof DailyBudgetRefusal || error instanceof MediaOnlyReply) {
      events.push({ type: 'reply.start', replyId });
      events.push({ type: 'reply.delta', replyId, text: replyText });
      events.push({ type: 'reply.end', replyId, text: replyText });
    } else {
      failure = toModelError(error, { shuttingDown: dependencies.shutdownSignal.aborted });
      const level = failure.code === 'internal' ? 'error' : 'warn';
      logger[level]({ code: failure.code, err: error }, 'turn failed');
      events.push({
        type: 'error',
        code: failure.code,
        message: failure.message,
        retryable: failure.retryable,
      });
    }
  }
  events.end();
  const finishedAt = now();
  const spend = await budget.spend().catch((error: unknown) => {
    logger.warn({ err: error }, 'could not read what the message spent');
    return { modelCalls: 0, inputTokens: 0, outputTokens: 0 };
  });
  chargeDailyBudget(dependencies.dailyBudget, intent.userId, spend, finishedAt, logger);

  const retryableFailure = failure?.retryable === true;
  const report: TurnReport = {
    conversationKey,
    channel: intent.channel,
    intentId: intent.id,
    outcome: failure ? (failure.code === 'shutting_down' ? 'aborted' : 'error') : 'ok',
    queuedMs: startedAt - enqueuedAt,
    durationMs: finishedAt - startedAt,
    ...(failure ? { errorCode: failure.code } : {}),
    ...(firstDeltaAt === undefined ? {} : { firstDeltaMs: firstDeltaAt - startedAt }),
    ...(memoryReport ? { memory: memoryReport } : {}),
    spend,
    ...(budgetExhausted ? { budgetExhausted } : {}),
  };
  // The turn is stored (and its inbox entry finished, same transaction) only once the channel has
  // the reply: a crash before that replays the intent rather than losing the answer. What is left
  // is the moment between the channel taking the reply and the commit (see docs/architecture.md).
  let storing: Promise<void> | undefined;
  finishTurn = () => {
    storing ??= storeOutcome();
    return storing;
  };
  const storeOutcome = async () => {
    const abandoned = dependencies.hardStopSignal.aborted && !deliveredFully;
    if (failure?.code === 'shutting_down' || abandoned) {
      logger.info({}, 'turn left in the inbox for the next start');
      return;
    }
    // The model sees in later turns which files it sent, by name; the bytes are not kept.
    const storedReply =
      mediaNames.length === 0 ? replyText : `${replyText}\n[sent: ${mediaNames.join(', ')}]`.trim();
    try {
      if (retryableFailure) {
        // The person was told to try again; the resend must be taken, not called a duplicate.
        await sessionStore.finishIntent({ channel: intent.channel, intentId: intent.id });
        return;
      }
      const turn = {
        conversationKey,
        channel: intent.channel,
        userId: intent.userId,
        intentId: revision ? revision.targetIntentId : intent.id,
        userText: storedUserText(intent.text, media),
        replyText: storedReply,
        outcome: failure ? ('error' as const) : ('ok' as const),
        createdAt: finishedAt,
        ...(tokenCounter
          ? { tokenCount: tokenCounter.count(intent.text) + tokenCounter.count(storedReply) }
          : {}),
      };
      if (!revision) await sessionStore.appendTurn(turn);
      else
        await sessionStore.applyRevision({
          channel: intent.channel,
          intentId: intent.id,
          targetIntentId: revision.targetIntentId,
          kind: 'edit',
          userId: intent.userId,
          change: { type: revision.mode === 'rerun' ? 'replace' : 'insert', turn },
          createdAt: finishedAt,
        });
    } catch (error) {
      logger.error({ err: error }, 'could not store the turn');
      return;
    }
    if (
      !failure &&
      budgetExhausted !== 'daily_tokens' &&
      !media?.problemsOnly &&
      dependencies.memory &&
      agent.configured &&
      intent.text.trim() !== ''
    ) {
      await enqueueAfterTurn({
        memory: dependencies.memory,
        intent,
        conversationKey,
        replyText,
        logger,
        ...(revision
          ? {
              revision: {
                kind: 'edit' as const,
                messageIntentId: revision.targetIntentId,
                ...(revision.previousUserText === undefined
                  ? {}
                  : { previousUserText: revision.previousUserText }),
              },
            }
          : {}),
      });
    }
  };
  // Delivery given up on (timeout, hard stop): the outcome is settled here instead.
  const drain = settleDelivery(delivered, deliveryController, dependencies.deliveryTimeoutMs, logger)
    .finally(() => dependencies.hardStopSignal.removeEventListener('abort', stopDelivery))
    .then(() => finishTurn?.());
  return { report, drain, retryableFailure };
}

/** Waits for the adapter, but never longer than the timeout: a stuck channel must not stall its lane. */
function settleDelivery(
  delivered: Promise<void>,
  controller: AbortController,
  timeoutMs: number,
  logger: Logger,
): Promise<void> {
  return new Promise<void>((resolve) => {
    const giveUp = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      logger.warn({ timeoutMs }, 'channel still delivering after the timeout; moving on');
      controller.abort();
      giveUp();
    }, timeoutMs);
    controller.signal.addEventListener('abort', giveUp, { once: true });
    delivered.then(() => {
      controller.signal.removeEventListener('abort', giveUp);
      giveUp();
    });
  });
}

/** Thrown inside the turn when the attachments' problems are the whole answer. */
class MediaOnlyReply extends Error {}
