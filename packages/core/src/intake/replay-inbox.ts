import { type ChannelAdapter, type Logger, NexusError } from '@nexus/protocol';
import type { LaneTask } from '../lanes/conversation-lanes.ts';
import type { InboxEntry, SessionStore } from '../session-store/session-store.ts';
import { type AccessStep, checkAccess } from './decide-access.ts';
import { isIntakeResult } from './intake-refusals.ts';
import { dedupeKeyOf, type IntentDeduplicator } from './intent-deduplicator.ts';
import type { LaneTasks } from './lane-tasks.ts';

/** What `replayInbox` did: queued again, left for a channel not registered, answered with an error. */
export interface InboxReplay {
  replayed: number;
  waiting: number;
  givenUp: number;
}

/** Starts that may replay one entry before it is answered with an error instead. */
export const MAX_INBOX_REPLAYS = 3;

export interface ReplayContext {
  /** The store intake writes the inbox to (not scoped by the access step). */
  sessionStore: SessionStore;
  adapters: ReadonlyMap<string, ChannelAdapter>;
  deduplicator: IntentDeduplicator;
  laneTasks: LaneTasks;
  /** Intake's access step, for a command whose answer was never worked out. */
  access: AccessStep;
  logger: Logger;
  now: () => number;
}

/**
 * The entries an earlier process accepted and did not finish re-enter intake after its inbox
 * step: each is claimed in the de-duplicator, a command not yet answered goes through the access
 * step again (in its lane, when its turn comes), and it is enqueued like a fresh entry, in the
 * original order per conversation.
 */
export async function replayInbox(context: ReplayContext): Promise<InboxReplay> {
  let entries: InboxEntry[];
  try {
    entries = await context.sessionStore.unfinishedIntents();
  } catch (error) {
    context.logger.error({ err: error }, 'could not read the inbox; nothing replayed');
    return { replayed: 0, waiting: 0, givenUp: 0 };
  }
  const { laneTasks } = context;
  const counts = { replayed: 0, waiting: 0, givenUp: 0 };
  // Edits and deletes waiting behind the message they change withdraw it, as at intake.
  for (const entry of entries) {
    const key = dedupeKeyOf(entry.channel, entry.intentId);
    if (entry.kind === 'turn' && !entry.decided.revises && !laneTasks.isInLane(key))
      laneTasks.markWaiting(key, entry.decided.userId);
  }
  for (const entry of entries) {
    const revises = entry.decided.revises;
    if (revises && (revises.kind === 'edit' || revises.kind === 'delete'))
      laneTasks.withdraw(entry.channel, revises.targetIntentId, entry.decided.userId);
  }
  for (const entry of entries) {
    const adapter = context.adapters.get(entry.channel);
    const key = dedupeKeyOf(entry.channel, entry.intentId);
    // Not registered (a channel switched off): the entry waits for a start that has it.
    if (!adapter) counts.waiting += 1;
    // Already in a lane of this process (taken by intake after it started, or replayed).
    else if (laneTasks.isInLane(key)) continue;
    else {
      laneTasks.reserveLane(key);
      context.deduplicator.claim(key);
      const task = await replayOrGiveUp(entry, adapter, context);
      counts[task.givenUp ? 'givenUp' : 'replayed'] += 1;
      laneTasks.enqueue(entry.conversationKey, key, task.run);
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
  context: ReplayContext,
): Promise<{ givenUp: boolean; run: LaneTask }> {
  if (entry.replays >= MAX_INBOX_REPLAYS) {
    context.logger.error(
      { intentId: entry.intentId, channel: entry.channel, replays: entry.replays },
      'giving up on a message no start could finish',
    );
    const failed = async (): Promise<string> => {
      throw new NexusError({ code: 'internal', message: 'given up after repeated restarts' });
    };
    return { givenUp: true, run: context.laneTasks.replyTask(entry, adapter, failed, false) };
  }
  try {
    await context.sessionStore.countReplay(entry);
  } catch (error) {
    context.logger.warn({ err: error, intentId: entry.intentId }, 'could not count a replay');
  }
  return { givenUp: false, run: replayTask(entry, adapter, context) };
}

/** The lane task that finishes an entry left by an earlier process. */
function replayTask(entry: InboxEntry, adapter: ChannelAdapter, context: ReplayContext): LaneTask {
  const { laneTasks } = context;
  if (entry.kind === 'turn') return laneTasks.turnTask(entry.decided, adapter, context.now());
  const { replyText } = entry;
  if (replyText !== undefined) return laneTasks.replyTask(entry, adapter, async () => replyText, false);
  // The command's answer was never worked out, so its effect (kept in the access store) may or
  // may not have happened: decide again, as if the message had just arrived.
  return async () => {
    const decision = await checkAccess(entry.intent, context.access);
    if (isIntakeResult(decision)) {
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
      return laneTasks.replyTask({ ...entry, decided: decision.intent }, adapter, decision.reply)();
    return laneTasks.turnTask(decision.intent, adapter, context.now())();
  };
}
