import type { ChannelAdapter, DeliverOptions, Intent, Logger, ReplyMediaKind } from '@nexus/protocol';
import type { Tracer } from '@opentelemetry/api';
import type { TurnBudget } from '../cost/turn-budget.ts';
import { createTurnBudget } from '../cost/turn-budget.ts';
import { tracedMemoryStep } from '../memory/context/memory-step-span.ts';
import { loadTurnMemory } from '../memory/context/turn-memory.ts';
import { SPAN } from '../tracing/span-names.ts';
import { traced } from '../tracing/traced.ts';
import { checkTurnAllowance } from './check-turn-allowance.ts';
import { replyWithKnownAnswer } from './known-answer.ts';
import { loadTurnContext } from './load-turn-context.ts';
import { readAttachments } from './read-attachments.ts';
import { replyIdFor } from './reply-id.ts';
import type { ReplyStream } from './reply-stream.ts';
import { settleTurnSpend } from './settle-turn-spend.ts';
import { startDelivery } from './start-delivery.ts';
import { stopReply } from './stop-reply.ts';
import { storeTurnOutcome } from './store-turn-outcome.ts';
import { streamAgentReply } from './stream-agent-reply.ts';
import { turnReport } from './turn-report.ts';
import { emptyReply, type TurnSoFar } from './turn-so-far.ts';
import { turnOutcomeAttributes, turnSpanAttributes } from './turn-span-attributes.ts';
import type { TurnDependencies, TurnResult, TurnRevision } from './turn-types.ts';

export type { TurnDependencies, TurnReport, TurnResult, TurnRevision } from './turn-types.ts';

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
  const { tracing } = dependencies;
  // `nexus.turn`: open from the start of the turn until it is delivered and stored (its drain).
  const stages = traced(tracing?.tracer, SPAN.turn, runStages, {
    attributes: () => turnSpanAttributes(tracing, intent),
    result: turnOutcomeAttributes,
    until: (result) => result.drain,
  });
  return stages(intent, enqueuedAt, adapter, dependencies, revision);
}

/**
 * The stages in order: start-delivery (first, so delivery runs alongside generation) →
 * check-turn-allowance → read-attachments → load-turn-context → stream-agent-reply →
 * settle-turn-spend → store-turn-outcome. An answer known in advance (allowance used up, only
 * attachment problems) skips the model; a stage that throws ends the turn in stop-reply.
 */
async function runStages(
  intent: Intent,
  enqueuedAt: number,
  adapter: ChannelAdapter,
  dependencies: TurnDependencies,
  revision: TurnRevision | undefined,
): Promise<TurnResult> {
  const { now, shutdownSignal, hardStopSignal } = dependencies;
  const startedAt = now();
  const conversationKey = `${intent.channel}:${intent.conversation.id}`;
  const logger = dependencies.logger.child({ conversationId: conversationKey, intentId: intent.id });
  const tracer = dependencies.tracing?.tracer;
  const delivery = startDelivery({
    intent,
    revision,
    adapter: tracedDelivery(tracer, adapter, intent.channel),
    hardStopSignal,
    logger,
  });
  const { events } = delivery;
  events.push({ type: 'typing' });
  const turn: TurnSoFar = { intent, reply: emptyReply(replyIdFor(intent)) };
  const limits = dependencies.turnLimits;
  const budget = (dependencies.createTurnBudget ?? createTurnBudget)(limits, {
    id: turn.reply.replyId,
    channel: intent.channel,
  });
  const { dailyBudget } = dependencies;
  const running = dependencies.runningReplies?.start({
    channel: intent.channel,
    conversationId: intent.conversation.id,
    replyId: turn.reply.replyId,
    intentId: intent.id,
  });
  try {
    let known = checkTurnAllowance({ intent, startedAt, dailyBudget, shutdownSignal, logger });
    if (!known) {
      const settings = dependencies.media;
      Object.assign(
        turn,
        await readAttachments({ intent, adapter, settings, abortSignal: shutdownSignal, logger }),
      );
      // Nothing the model could use: the honest reply alone, no model call, no extraction.
      if (turn.media?.problemsOnly) known = { kind: 'answered', text: turn.media.problems.join('\n') };
    }
    if (known) replyWithKnownAnswer(known, turn.reply, events);
    else {
      const stopSignal = running?.stopSignal;
      await answerWithModel({
        turn,
        conversationKey,
        revision,
        events,
        budget,
        stopSignal,
        mediaOut: adapter.capabilities.mediaOut,
        dependencies,
        logger,
      });
    }
  } catch (error) {
    turn.failure = stopReply(error, events, shutdownSignal.aborted, logger);
  } finally {
    running?.finished();
  }
  events.end();
  const finishedAt = now();
  const spend = await settleTurnSpend({ budget, dailyBudget, intent: turn.intent, finishedAt, logger });
  const report = turnReport({ turn, conversationKey, enqueuedAt, startedAt, finishedAt, spend });
  // The turn is stored (and its inbox entry finished, same transaction) only once the channel has
  // the reply: a crash before that replays the intent rather than losing the answer. What is left
  // is the moment between the channel taking the reply and the commit (see docs/architecture.md).
  let storing: Promise<void> | undefined;
  const store = () => {
    const abandoned = hardStopSignal.aborted && !delivery.deliveredFully();
    storing ??= storeTurnOutcome({
      turn,
      conversationKey,
      revision,
      finishedAt,
      abandoned,
      dependencies,
      logger,
    });
    return storing;
  };
  const drain = delivery.drain(store, dependencies.deliveryTimeoutMs);
  return { report, drain, retryableFailure: turn.failure?.retryable === true };
}

/** load-turn-context, its memory step in its span, then stream-agent-reply. */
async function answerWithModel(options: {
  turn: TurnSoFar;
  conversationKey: string;
  revision: TurnRevision | undefined;
  events: ReplyStream;
  budget: TurnBudget;
  stopSignal: AbortSignal | undefined;
  mediaOut: readonly ReplyMediaKind[];
  dependencies: TurnDependencies;
  logger: Logger;
}): Promise<void> {
  const { turn, conversationKey, events, dependencies, logger } = options;
  const context = await loadTurnContext({
    intent: turn.intent,
    conversationKey,
    revision: options.revision,
    events,
    dependencies,
    logger,
    loadMemory: tracedMemoryStep(dependencies.tracing?.tracer, loadTurnMemory),
  });
  turn.tokenCounter = context.tokenCounter;
  if (context.memoryStep) turn.memoryReport = context.memoryStep.report;
  await streamAgentReply({
    turn,
    context,
    budget: options.budget,
    events,
    conversationKey,
    ...(options.stopSignal ? { stopSignal: options.stopSignal } : {}),
    mediaOut: options.mediaOut,
    dependencies,
    logger,
  });
}

/** The channel's `deliver` inside `nexus.delivery`, until the adapter is done rendering the reply. */
function tracedDelivery(
  tracer: Tracer | undefined,
  adapter: ChannelAdapter,
  channel: string,
): Pick<ChannelAdapter, 'deliver'> {
  if (!tracer) return adapter;
  const deliver = (request: DeliverOptions) => adapter.deliver(request);
  return {
    deliver: traced(tracer, SPAN.delivery, deliver, { attributes: () => ({ 'nexus.channel': channel }) }),
  };
}
