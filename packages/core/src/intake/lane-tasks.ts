import type { ChannelAdapter, Intent, Logger } from '@nexus/protocol';
import type { AccessReply } from '../access/access-decision.ts';
import { answerWithoutModel } from '../commands/answer-without-model.ts';
import type { ConversationLanes, LaneTask } from '../lanes/conversation-lanes.ts';
import { runRevision } from '../revisions/run-revision.ts';
import type { InboxEntry, SessionStore } from '../session-store/session-store.ts';
import { replyIdFor } from '../turn/reply-id.ts';
import { runTurn, type TurnDependencies, type TurnReport, type TurnResult } from '../turn/run-turn.ts';
import { dedupeKeyOf, type IntentDeduplicator } from './intent-deduplicator.ts';

export interface LaneTaskContext {
  /** The store intake writes the inbox to (not scoped by the access step). */
  sessionStore: SessionStore;
  dependencies: TurnDependencies;
  lanes: Pick<ConversationLanes, 'enqueue'>;
  deduplicator: IntentDeduplicator;
  logger: Logger;
  now: () => number;
  onTurnFinished?: (report: TurnReport) => void;
}

export type LaneTasks = ReturnType<typeof createLaneTasks>;

/**
 * The lane work of inbox entries: a fresh one after intake wrote it, or one an earlier process
 * left (the replay at start). Each finishes its entry as described in docs/architecture.md.
 */
export function createLaneTasks(context: LaneTaskContext) {
  /** Intents queued or running here, by de-dupe key: a replay must not queue them twice. */
  const inLanes = new Set<string>();
  /** Model turns queued and not started yet, by de-dupe key, with their person: an edit or delete may withdraw them. */
  const waitingTurns = new Map<string, string>();
  /** Withdrawn turns: when their lane reaches them they end without an answer. */
  const withdrawn = new Set<string>();

  /**
   * The person edited or deleted a message whose turn has not started: it is not answered as it
   * was (a delete leaves it unanswered, an edit is answered once, with the new words). Only the
   * author's own message. True when withdrawn; a turn already running is answered, then revised.
   */
  function withdraw(channel: string, targetIntentId: string, userId: string): boolean {
    const key = dedupeKeyOf(channel, targetIntentId);
    if (waitingTurns.get(key) !== userId) return false;
    waitingTurns.delete(key);
    withdrawn.add(key);
    return true;
  }

  /**
   * Queues an entry's task on its conversation's lane, marked as in a lane until it is done. What
   * is durable is never refused afterwards, so the lane takes it over its limit.
   */
  function enqueue(conversationKey: string, key: string, task: LaneTask): void {
    context.lanes.enqueue(conversationKey, inLane(key, task), { overLimit: true });
  }

  /** A model turn waiting in its lane, which an edit or delete by its author may withdraw. */
  function markWaiting(key: string, userId: string): void {
    waitingTurns.set(key, userId);
  }

  /** Marks an intent as in a lane of this process until its task and delivery are done. */
  function inLane(key: string, task: LaneTask): LaneTask {
    inLanes.add(key);
    return async () => {
      try {
        const drain = (await task())?.drain ?? Promise.resolve();
        return { drain: drain.finally(() => inLanes.delete(key)) };
      } catch (error) {
        inLanes.delete(key);
        throw error;
      }
    };
  }

  /**
   * A model turn in its lane, or an edit or delete; a retryable failure other than shutdown lets
   * the resend in again.
   */
  function turnTask(intent: Intent, adapter: ChannelAdapter, enqueuedAt: number): LaneTask {
    return async () => {
      const key = dedupeKeyOf(intent.channel, intent.id);
      waitingTurns.delete(key);
      if (withdrawn.delete(key)) {
        context.logger.info(
          { intentId: intent.id },
          'message edited or deleted before its turn: not answered as it was',
        );
        await context.sessionStore
          .finishIntent({ channel: intent.channel, intentId: intent.id })
          .catch((error: unknown) => {
            context.logger.error({ err: error }, 'could not finish the inbox entry');
          });
        return undefined;
      }
      let result: TurnResult;
      if (intent.revises) {
        try {
          const outcome = await runRevision(intent, enqueuedAt, adapter, context.dependencies);
          if (!('turn' in outcome)) return undefined;
          result = outcome.turn;
        } catch (error) {
          // Left in the inbox for the next start; a redelivery meanwhile may try again.
          context.logger.error({ err: error, intentId: intent.id }, 'could not apply an edit or delete');
          context.deduplicator.release(key);
          return undefined;
        }
      } else {
        result = await runTurn(intent, enqueuedAt, adapter, context.dependencies);
      }
      try {
        context.onTurnFinished?.(result.report);
      } catch (error) {
        context.logger.warn({ err: error }, 'onTurnFinished threw');
      }
      const releaseAfter = result.retryableFailure && result.report.errorCode !== 'shutting_down';
      const drain = releaseAfter
        ? result.drain.then(() => context.deduplicator.release(dedupeKeyOf(intent.channel, intent.id)))
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
        replyId: replyIdFor(entry.decided),
        logger: context.logger,
        hardStopSignal: context.dependencies.hardStopSignal,
        deliveryTimeoutMs: context.dependencies.deliveryTimeoutMs,
        ...(keep ? { onAnswer: (replyText) => context.sessionStore.recordReply({ ...key, replyText }) } : {}),
        onDelivered: () => context.sessionStore.finishIntent(key),
      });
  }

  /** Whether this process has the intent in a lane (taken by intake, or replayed). */
  const isInLane = (key: string): boolean => inLanes.has(key);
  /** Marks it as in a lane before an await, so a second replay running meanwhile skips it. */
  const reserveLane = (key: string): void => void inLanes.add(key);

  return { enqueue, isInLane, markWaiting, replyTask, reserveLane, turnTask, withdraw };
}
