import type { TurnBudget } from '@nexus/core';

export interface BudgetObserver {
  /** A model request was let through. */
  onCall(channel: string): void;
  /** A finished request's usage. */
  onUsage(channel: string, usage: { inputTokens: number; outputTokens: number }): void;
  /** A run ended early because the message's budget ran out. */
  onStopped(channel: string, reason: string): void;
}

/**
 * The same budget, reporting each request and its tokens as they happen: a worker counts what it
 * spent per channel even for runs that fail or are handed back before they finish.
 */
export function observedTurnBudget(budget: TurnBudget, observer: BudgetObserver): TurnBudget {
  return {
    id: budget.id,
    channel: budget.channel,
    limits: budget.limits,
    async claimCall() {
      const claim = await budget.claimCall();
      if (claim.ok) observer.onCall(budget.channel);
      return claim;
    },
    async charge(usage) {
      await budget.charge(usage);
      observer.onUsage(budget.channel, {
        inputTokens: usage.inputTokens ?? 0,
        outputTokens: usage.outputTokens ?? 0,
      });
    },
    exhausted: () => budget.exhausted(),
    spend: () => budget.spend(),
  };
}
