import type { ChannelAdapter, Intent } from '@nexus/protocol';
import { createTurnBudget } from '../cost/turn-budget.ts';
import { replyIdFor } from '../reply-id.ts';
import { traceTurn } from '../tracing/turn-spans.ts';
import { admitTurn } from './admit-turn.ts';
import { EarlyReply } from './early-reply.ts';
import { loadTurnContext } from './load-turn-context.ts';
import { readAttachments } from './read-attachments.ts';
import { settleTurnSpend } from './settle-turn-spend.ts';
import { startDelivery } from './start-delivery.ts';
import { stopReply } from './stop-reply.ts';
import { storeTurnOutcome } from './store-turn-outcome.ts';
import { streamAgentReply } from './stream-agent-reply.ts';
import { turnReport } from './turn-report.ts';
import { emptyReply, type TurnSoFar } from './turn-so-far.ts';
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
  return traceTurn(dependencies.tracing, intent, () =>
    runStages(intent, enqueuedAt, adapter, dependencies, revision),
  );
}

/** The stages in order: deliver (started first) → admit → media → memory → agent → budget → store. */
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
  const delivery = startDelivery({ intent, revision, adapter, tracer, hardStopSignal, logger });
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
    admitTurn({ intent, startedAt, dailyBudget, shutdownSignal, logger });
    const settings = dependencies.media;
    Object.assign(
      turn,
      await readAttachments({ intent, adapter, settings, abortSignal: shutdownSignal, logger }),
    );
    // Nothing the model could use: the honest reply alone, no model call, no extraction.
    if (turn.media?.problemsOnly) throw new EarlyReply(turn.media.problems.join('\n'));
    const context = await loadTurnContext({
      intent: turn.intent,
      conversationKey,
      revision,
      events,
      dependencies,
      logger,
    });
    turn.tokenCounter = context.tokenCounter;
    if (context.memoryStep) turn.memoryReport = context.memoryStep.report;
    await streamAgentReply({
      turn,
      context,
      budget,
      events,
      conversationKey,
      ...(running ? { stopSignal: running.stopSignal } : {}),
      dependencies,
      logger,
    });
  } catch (error) {
    const failure = stopReply(error, turn.reply, events, shutdownSignal.aborted, logger);
    if (failure) turn.failure = failure;
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
