import type { Intent, Logger } from '@nexus/protocol';
import { chargeDailyBudget } from '../cost/daily-budget-step.ts';
import type { DailyTokenBudget } from '../cost/daily-token-budget.ts';
import type { TurnBudget, TurnSpend } from '../cost/turn-budget.ts';

/**
 * Budget, closed: what the whole message spent (subagents included), charged to the person's
 * daily allowance (and in a group, the group's too). A counter that cannot be read counts as nothing spent, logged.
 */
export async function settleTurnSpend(options: {
  budget: TurnBudget;
  dailyBudget: DailyTokenBudget | undefined;
  intent: Pick<Intent, 'userId' | 'channel' | 'conversation'>;
  finishedAt: number;
  logger: Logger;
}): Promise<TurnSpend> {
  const { logger } = options;
  const spend = await options.budget.spend().catch((error: unknown) => {
    logger.warn({ err: error }, 'could not read what the message spent');
    return { modelCalls: 0, inputTokens: 0, outputTokens: 0 };
  });
  chargeDailyBudget(options.dailyBudget, options.intent, spend, options.finishedAt, logger);
  return spend;
}
