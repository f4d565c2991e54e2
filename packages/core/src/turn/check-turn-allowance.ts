import type { Intent, Logger } from '@nexus/protocol';
import { checkDailyBudget } from '../cost/daily-budget-step.ts';
import { type DailyTokenBudget, dailyBudgetReply } from '../cost/daily-token-budget.ts';
import type { KnownAnswer } from './known-answer.ts';

/**
 * Check-turn-allowance: the first stage. A turn that starts while shutting down stops with the
 * shutdown's reason (it stays in the inbox); a person (or, in a group, the group) over the daily
 * allowance gets the refusal as a known answer.
 */
export function checkTurnAllowance(options: {
  intent: Pick<Intent, 'userId' | 'channel' | 'conversation'>;
  startedAt: number;
  dailyBudget: DailyTokenBudget | undefined;
  shutdownSignal: AbortSignal;
  logger: Logger;
}): KnownAnswer | undefined {
  const { startedAt } = options;
  const refusal = checkDailyBudget(options.dailyBudget, options.intent, startedAt, options.logger);
  if (options.shutdownSignal.aborted) throw options.shutdownSignal.reason;
  // Refused before any model call: no memory step, no extraction afterwards.
  if (!refusal) return undefined;
  const text = dailyBudgetReply(refusal.allowance, startedAt, refusal.subject);
  return { kind: 'answered', text, budgetExhausted: 'daily_tokens' };
}
