/** What one inbound message may cost: every model call it causes, subagents and tool steps included. */
export interface TurnLimits {
  /** Model requests (each step of each run, retries included: every request the provider bills). */
  maxModelCalls: number;
  /** Output tokens over all those requests. */
  maxOutputTokens: number;
  /**
   * Input tokens over all those requests, as the provider reports them (the prompt of each call:
   * instructions, history, memory, tool results, documents and images). Each call re-sends the
   * growing context, so twelve calls can cost far more input than one; the next call is refused
   * once this is reached (one call may overrun it by its own input).
   */
  maxInputTokens: number;
}

/**
 * 12 calls: a plain answer is 1, a memory tool round 2–3, a delegation of three tasks with a tool
 * step each about 9; a loop of tool calls reaches 12 quickly and stops there. 8,000 output tokens:
 * several long answers' worth, far above what one chat reply needs. 100,000 input tokens: a
 * prompt is about 5,000 (instructions, 3,000 of history, memory, tools), so a tool-heavy message
 * fits many times over, and a long document still fits once or twice; 12 calls re-sending a
 * grown context of 50,000 do not.
 */
export const DEFAULT_TURN_LIMITS: TurnLimits = {
  maxModelCalls: 12,
  maxOutputTokens: 8000,
  maxInputTokens: 100_000,
};

export type BudgetStopReason = 'model_calls' | 'output_tokens' | 'input_tokens';

/** What a message (or one run of it) spent. */
export interface TurnSpend {
  modelCalls: number;
  inputTokens: number;
  outputTokens: number;
}

export type CallClaim = { ok: true; maxOutputTokens: number } | { ok: false; reason: BudgetStopReason };

/**
 * The shared allowance of one inbound message. Every run the message causes (the main run, each
 * subagent at any depth) claims a call before each model request and charges what it used after,
 * so parallel subagents draw from the same counters. A claim made is never given back: the count
 * of claims equals the count of requests sent.
 */
export interface TurnBudget {
  /** Names the shared counters, so a worker process can draw from the same budget. */
  readonly id: string;
  /** The channel of the message, for the metrics of whichever process makes the calls. */
  readonly channel: string;
  readonly limits: TurnLimits;
  /** One more model request, with the output tokens it may still use; refused when a cap is reached. */
  claimCall(): Promise<CallClaim>;
  /** The usage of a finished request. */
  charge(usage: { inputTokens?: number | undefined; outputTokens?: number | undefined }): Promise<void>;
  /** Why no further request may be made, if so. */
  exhausted(): Promise<BudgetStopReason | undefined>;
  /** What was spent so far, over every run of the message. */
  spend(): Promise<TurnSpend>;
}

/** The reason a run stopped, carried by the error the budget raises inside the model call. */
export class BudgetExhaustedError extends Error {
  readonly code = 'budget_exhausted';
  readonly retryable = false;
  readonly reason: BudgetStopReason;
  constructor(reason: BudgetStopReason) {
    super(
      reason === 'model_calls'
        ? 'This message reached its limit of model calls.'
        : `This message reached its limit of ${reason === 'input_tokens' ? 'input' : 'output'} tokens.`,
    );
    this.name = 'BudgetExhaustedError';
    this.reason = reason;
  }
}

/** Finds a BudgetExhaustedError however the SDK wrapped it. */
export function budgetStopOf(error: unknown): BudgetStopReason | undefined {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    if (current instanceof BudgetExhaustedError) return current.reason;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Decides a claim from the counters; shared by the in-process and the Redis budget. */
export function decideClaim(
  limits: TurnLimits,
  spentCalls: number,
  spentOutput: number,
  spentInput = 0,
): CallClaim {
  if (spentCalls >= limits.maxModelCalls) return { ok: false, reason: 'model_calls' };
  if (spentInput >= limits.maxInputTokens) return { ok: false, reason: 'input_tokens' };
  const remaining = limits.maxOutputTokens - spentOutput;
  if (remaining <= 0) return { ok: false, reason: 'output_tokens' };
  return { ok: true, maxOutputTokens: remaining };
}

/** Which message a budget belongs to. */
export interface TurnBudgetScope {
  id: string;
  channel: string;
}

/** Where a message's counters live: in this process, or shared (Redis) with worker processes. */
export type CreateTurnBudget = (limits: TurnLimits, scope: TurnBudgetScope) => TurnBudget;

/** The budget of a message whose runs all happen in this process. */
export function createTurnBudget(limits: TurnLimits, scope: TurnBudgetScope): TurnBudget {
  const spent: TurnSpend = { modelCalls: 0, inputTokens: 0, outputTokens: 0 };
  return {
    ...scope,
    limits,
    async claimCall() {
      const claim = decideClaim(limits, spent.modelCalls, spent.outputTokens, spent.inputTokens);
      if (claim.ok) spent.modelCalls += 1;
      return claim;
    },
    async charge(usage) {
      spent.inputTokens += usage.inputTokens ?? 0;
      spent.outputTokens += usage.outputTokens ?? 0;
    },
    async exhausted() {
      const claim = decideClaim(limits, spent.modelCalls, spent.outputTokens, spent.inputTokens);
      return claim.ok ? undefined : claim.reason;
    },
    spend: async () => ({ ...spent }),
  };
}

/** Checks limits given by an operator: whole numbers of at least 1. */
export function resolveTurnLimits(limits: Partial<TurnLimits> = {}): TurnLimits {
  const resolved = { ...DEFAULT_TURN_LIMITS };
  for (const key of ['maxModelCalls', 'maxOutputTokens', 'maxInputTokens'] as const) {
    const value = limits[key];
    if (value === undefined) continue;
    if (!Number.isInteger(value) || value < 1)
      throw new RangeError(`turnLimits.${key} must be a whole number of at least 1 (got ${value}).`);
    resolved[key] = value;
  }
  return resolved;
}
