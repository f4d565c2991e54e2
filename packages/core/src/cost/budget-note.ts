import type { BudgetStopReason, TurnLimits } from './turn-budget.ts';

/**
 * The short note added to a reply the message's caps cut short, so the person knows the answer
 * may be incomplete and why. Standing alone when nothing was generated before the stop.
 */
export function budgetNote(reason: BudgetStopReason, limits: TurnLimits, textSoFar: string): string {
  const limit =
    reason === 'model_calls'
      ? `its limit of ${limits.maxModelCalls} model calls`
      : reason === 'input_tokens'
        ? `its limit of ${limits.maxInputTokens.toLocaleString('en-US')} input tokens`
        : `its limit of ${limits.maxOutputTokens.toLocaleString('en-US')} output tokens`;
  const note =
    textSoFar.trim() === ''
      ? `I stopped before finishing: this message reached ${limit}. Please ask again in smaller steps.`
      : `(I stopped here: this message reached ${limit}, so this answer may be incomplete.)`;
  return textSoFar.trim() === '' ? note : `\n\n${note}`;
}
