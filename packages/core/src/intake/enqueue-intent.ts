import type { ChannelAdapter } from '@nexus/protocol';
import type { AdmitIntentOptions } from '../session-store/session-store.ts';
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
  laneTasks: LaneTasks,
): void {
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
  laneTasks.enqueue(entry.conversationKey, key, task);
}
