import type { ChannelAdapter, IntakeResult, Intent, Logger } from '@nexus/protocol';
import { NexusError } from '@nexus/protocol';
import type { AccessDecision, AccessReply } from '../access/access-decision.ts';
import { answerWithoutModel } from '../commands/answer-without-model.ts';
import type { ConversationLanes, LaneTask } from '../lanes/conversation-lanes.ts';
import type { IntentDeduplicator } from './intent-deduplicator.ts';
import { replyIdFor } from '../turn/reply-id.ts';
import { runRevision } from '../revisions/run-revision.ts';
import type { AdmitIntentOptions, InboxEntry, SessionStore } from '../session-store/session-store.ts';
import { runTurn, type TurnDependencies, type TurnReport, type TurnResult } from '../turn/run-turn.ts';

/** What `replayInbox` did: queued again, left for a channel not registered, answered with an error. */
export interface InboxReplay {
  replayed: number;
  waiting: number;
  givenUp: number;
}

/** Starts that may replay one entry before it is answered with an error instead. */
export const MAX_INBOX_REPLAYS = 3;

/** An access decision that gets an answer: a model turn or a reply without the model. */
export type AnsweredDecision = Exclude<AccessDecision, { action: 'reject' | 'ignore' }>;

export interface InboxLaneContext {
  /** The store intake writes the inbox to (not scoped by the access step). */
  sessionStore: SessionStore;
  dependencies: TurnDependencies;
  lanes: ConversationLanes;
  deduplicator: IntentDeduplicator;
  adapters: ReadonlyMap<string, ChannelAdapter>;
  logger: Logger;
  now: () => number;
  decideAccess(intent: Intent): Promise<AnsweredDecision | IntakeResult>;
  onTurnFinished?: (report: TurnReport) => void;
}

export function dedupeKeyOf(channel: string, intentId: string): string {
  return `${channel}\u0000${intentId}`;
}

/**
 * The lane work of inbox entries: a fresh one after intake wrote it, or one an earlier process
 * left (the replay at start). Each finishes its entry as described in docs/architecture.md.
 */
export function createInboxLaneTasks(context: InboxLaneContext) {
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

  /** Queues an entry intake has just written; room on the lane was checked before the write. */
  function enqueueAdmitted(
    entry: AdmitIntentOptions,
    adapter: ChannelAdapter,
    decision: AnsweredDecision,
  ): void {
    const task =
      decision.action === 'reply'
        ? replyTask(entry, adapter, decision.reply)
        : turnTask(decision.intent, adapter, entry.acceptedAt);
    const key = dedupeKeyOf(entry.channel, entry.intentId);
    if (decision.action === 'turn' && !decision.intent.revises) waitingTurns.set(key, decision.intent.userId);
    // The lane may run the task after other turns: it runs in intake's trace context, not theirs.
    const tracing = context.dependencies.tracing;
    const traced: LaneTask = tracing ? tracing.bindToActiveContext(task) : task;
    // What is durable is never refused afterwards.
    context.lanes.enqueue(entry.conversationKey, inLane(key, traced), { overLimit: true });
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

  /** The lane task that finishes an entry left by an earlier process. */
  function replayTask(entry: InboxEntry, adapter: ChannelAdapter): LaneTask {
    if (entry.kind === 'turn') return turnTask(entry.decided, adapter, context.now());
    const { replyText } = entry;
    if (replyText !== undefined) return replyTask(entry, adapter, async () => replyText, false);
    // The command's answer was never worked out, so its effect (kept in the access store) may or
    // may not have happened: decide again, as if the message had just arrived.
    return async () => {
      const decision = await context.decideAccess(entry.intent);
      if ('status' in decision) {
        context.logger.warn(
          { intentId: entry.intentId, status: decision.status },
          'replayed command not answered',
        );
        await context.sessionStore.finishIntent(entry).catch((error: unknown) => {
          context.logger.error({ err: error }, 'could not finish the inbox entry');
        });
        return undefined;
      }
      if (decision.action === 'reply')
        return replyTask({ ...entry, decided: decision.intent }, adapter, decision.reply)();
      return turnTask(decision.intent, adapter, context.now())();
    };
  }

  async function replayInbox(): Promise<InboxReplay> {
    let entries: InboxEntry[];
    try {
      entries = await context.sessionStore.unfinishedIntents();
    } catch (error) {
      context.logger.error({ err: error }, 'could not read the inbox; nothing replayed');
      return { replayed: 0, waiting: 0, givenUp: 0 };
    }
    const counts = { replayed: 0, waiting: 0, givenUp: 0 };
    // Edits and deletes waiting behind the message they change withdraw it, as at intake.
    for (const entry of entries) {
      const key = dedupeKeyOf(entry.channel, entry.intentId);
      if (entry.kind === 'turn' && !entry.decided.revises && !inLanes.has(key))
        waitingTurns.set(key, entry.decided.userId);
    }
    for (const entry of entries) {
      const revises = entry.decided.revises;
      if (revises && (revises.kind === 'edit' || revises.kind === 'delete'))
        withdraw(entry.channel, revises.targetIntentId, entry.decided.userId);
    }
    for (const entry of entries) {
      const adapter = context.adapters.get(entry.channel);
      const key = dedupeKeyOf(entry.channel, entry.intentId);
      // Not registered (a channel switched off): the entry waits for a start that has it.
      if (!adapter) counts.waiting += 1;
      // Already in a lane of this process (taken by intake after it started, or replayed).
      else if (inLanes.has(key)) continue;
      else {
        inLanes.add(key); // before the await, so a second replay running meanwhile skips it
        context.deduplicator.claim(key);
        const task = await replayOrGiveUp(entry, adapter);
        counts[task.givenUp ? 'givenUp' : 'replayed'] += 1;
        context.lanes.enqueue(entry.conversationKey, inLane(key, task.run), { overLimit: true });
      }
    }
    if (entries.length > 0) context.logger.info(counts, 'replaying unfinished messages from the inbox');
    return counts;
  }

  /**
   * An entry that was replayed at `MAX_INBOX_REPLAYS` starts already and is still here probably
   * takes the process down each time: the person gets an error instead, so one message cannot
   * keep the gateway in a crash loop. Otherwise the replay is counted (committed) before it runs.
   */
  async function replayOrGiveUp(
    entry: InboxEntry,
    adapter: ChannelAdapter,
  ): Promise<{ givenUp: boolean; run: LaneTask }> {
    if (entry.replays >= MAX_INBOX_REPLAYS) {
      context.logger.error(
        { intentId: entry.intentId, channel: entry.channel, replays: entry.replays },
        'giving up on a message no start could finish',
      );
      const failed = async (): Promise<string> => {
        throw new NexusError({ code: 'internal', message: 'given up after repeated restarts' });
      };
      return { givenUp: true, run: replyTask(entry, adapter, failed, false) };
    }
    try {
      await context.sessionStore.countReplay(entry);
    } catch (error) {
      context.logger.warn({ err: error, intentId: entry.intentId }, 'could not count a replay');
    }
    return { givenUp: false, run: replayTask(entry, adapter) };
  }

  return { enqueueAdmitted, replayInbox, withdraw };
}
