import type { Intent, Logger } from '@nexus/protocol';
import { groupMemoryId } from '../memory/memory-subject.ts';
import type { BudgetSubject, DailyAllowance, DailyTokenBudget } from './daily-token-budget.ts';
import type { TurnSpend } from './turn-budget.ts';

/** The allowance that refuses the turn, and whose it is. */
export interface DailyRefusal {
  allowance: DailyAllowance;
  subject: BudgetSubject;
}

/** What of an intent decides whose allowances a turn counts against. */
export type BudgetedIntent = Pick<Intent, 'userId' | 'channel' | 'conversation'>;

/** The budget ids a turn counts against: the person, and in a group the group conversation too. */
function subjectsOf(intent: BudgetedIntent): Array<{ id: string; subject: BudgetSubject }> {
  const subjects: Array<{ id: string; subject: BudgetSubject }> = [{ id: intent.userId, subject: 'person' }];
  if (intent.conversation.kind !== 'direct') {
    subjects.push({ id: groupMemoryId(intent.channel, intent.conversation.id), subject: 'group' });
  }
  return subjects;
}

/**
 * Whether the person's, or in a group the group's, allowance for today is used up. A store failure
 * must not silence the assistant: the turn goes ahead and the failure is logged.
 */
export function checkDailyBudget(
  budget: DailyTokenBudget | undefined,
  intent: BudgetedIntent,
  now: number,
  logger: Logger,
): DailyRefusal | undefined {
  if (!budget) return undefined;
  try {
    for (const { id, subject } of subjectsOf(intent)) {
      const allowance = budget.check(id, now);
      if (!allowance.allowed) return { allowance, subject };
    }
  } catch (error) {
    logger.error({ err: error }, 'could not read the daily token budget');
  }
  return undefined;
}

export function chargeDailyBudget(
  budget: DailyTokenBudget | undefined,
  intent: BudgetedIntent,
  spend: TurnSpend,
  now: number,
  logger: Logger,
): void {
  if (!budget) return;
  try {
    for (const { id } of subjectsOf(intent)) budget.charge(id, spend.inputTokens + spend.outputTokens, now);
  } catch (error) {
    logger.error({ err: error }, 'could not charge the daily token budget');
  }
}
