import type { Logger } from '@nexus/protocol';
import type { DailyAllowance, DailyTokenBudget } from './daily-token-budget.ts';
import type { TurnSpend } from './turn-budget.ts';

/** A store failure must not silence the assistant: the turn goes ahead and the failure is logged. */
export function checkDailyBudget(
  budget: DailyTokenBudget | undefined,
  userId: string,
  now: number,
  logger: Logger,
): DailyAllowance | undefined {
  if (!budget) return undefined;
  try {
    return budget.check(userId, now);
  } catch (error) {
    logger.error({ err: error }, 'could not read the daily token budget');
    return undefined;
  }
}

export function chargeDailyBudget(
  budget: DailyTokenBudget | undefined,
  userId: string,
  spend: TurnSpend,
  now: number,
  logger: Logger,
): void {
  if (!budget) return;
  try {
    budget.charge(userId, spend.inputTokens + spend.outputTokens, now);
  } catch (error) {
    logger.error({ err: error }, 'could not charge the daily token budget');
  }
}
