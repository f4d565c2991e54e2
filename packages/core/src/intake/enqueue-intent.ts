import type { ChannelAdapter } from '@nexus/protocol';
import type { LaneTask } from '../lanes/conversation-lanes.ts';
import type { AdmitIntentOptions } from '../session-store/session-store.ts';
import type { TurnTracing } from '../tracing/turn-tracing.ts';
import type { AnsweredDecision } from './decide-access.ts';
import { dedupeKeyOf } from './intent-deduplicator.ts';
import type { LaneTasks } from './lane-tasks.ts';

/**
 * Enqueue: the last intake step, for an entry just written to the inbox (room on the lane was
 * checked before the write). An edit or delete first withdraws the waiting turn it replaces.
 */
export function enqueueIntent(
  entry: AdmitIntentOptions,
  adapter: ChannelAdapter,
  decision: AnsweredDecision,
  context: { laneTasks: LaneTasks; tracing: TurnTracing | undefined },
): void {
  const { laneTasks } = context;
  const revises = decision.intent.revises;
  // Only an edit or a delete replaces the waiting message; another answer or a version does not.
  if (revises && (revises.kind === 'edit' || revises.kind === 'delete'))
    laneTasks.withdraw(entry.channel, revises.targetIntentId, decision.intent.userId);
  const task =
    decision.action === 'reply'
      ? laneTasks.replyTask(entry, adapter, decision.reply)
      : laneTasks.turnTask(decision.intent, adapter, entry.acceptedAt);
  const key = dedupeKeyOf(entry.channel, entry.intentId);
  if (decision.action === 'turn' && !revises) laneTasks.markWaiting(key, decision.intent.userId);
  // The lane may run the task after other turns: it runs in intake's trace context, not theirs.
  const traced: LaneTask = context.tracing ? context.tracing.bindToActiveContext(task) : task;
  laneTasks.enqueue(entry.conversationKey, key, traced);
}
