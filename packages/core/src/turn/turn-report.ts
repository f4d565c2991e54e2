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
  return {
    conversationKey: options.conversationKey,
    channel: turn.intent.channel,
    intentId: turn.intent.id,
    outcome: failure ? (failure.code === 'shutting_down' ? 'aborted' : 'error') : 'ok',
    queuedMs: startedAt - options.enqueuedAt,
    durationMs: options.finishedAt - startedAt,
    ...(failure ? { errorCode: failure.code } : {}),
    ...(reply.firstDeltaAt === undefined ? {} : { firstDeltaMs: reply.firstDeltaAt - startedAt }),
    ...(turn.memoryReport ? { memory: turn.memoryReport } : {}),
    spend: options.spend,
    ...(reply.budgetExhausted ? { budgetExhausted: reply.budgetExhausted } : {}),
  };
}
