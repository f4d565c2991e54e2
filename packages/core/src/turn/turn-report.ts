import type { TurnSpend } from '../cost/turn-budget.ts';
import type { TurnSoFar } from './turn-so-far.ts';
import type { TurnReport } from './turn-types.ts';

/** What one turn did, for metrics: outcome, times from intake and from the start, memory, spend. */
export function turnReport(options: {
  turn: TurnSoFar;
  conversationKey: string;
  enqueuedAt: number;
  startedAt: number;
  finishedAt: number;
  spend: TurnSpend;
}): TurnReport {
  const { turn, startedAt } = options;
  const { failure, reply } = turn;
  // Optional fields set one by one rather than spread in: this runs for every turn, and each
  // conditional spread builds and copies a throwaway object.
  const report: TurnReport = {
    conversationKey: options.conversationKey,
    channel: turn.intent.channel,
    intentId: turn.intent.id,
    outcome: failure ? (failure.code === 'shutting_down' ? 'aborted' : 'error') : 'ok',
    queuedMs: startedAt - options.enqueuedAt,
    durationMs: options.finishedAt - startedAt,
    spend: options.spend,
  };
  if (failure) report.errorCode = failure.code;
  if (reply.firstDeltaAt !== undefined) report.firstDeltaMs = reply.firstDeltaAt - startedAt;
  if (turn.memoryReport) report.memory = turn.memoryReport;
  if (reply.budgetExhausted) report.budgetExhausted = reply.budgetExhausted;
  return report;
}
