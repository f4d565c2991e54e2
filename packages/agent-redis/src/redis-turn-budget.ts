import {
  type BudgetStopReason,
  type CallClaim,
  decideClaim,
  type TurnBudget,
  type TurnBudgetScope,
  type TurnLimits,
  type TurnSpend,
} from '@nexus/core';
import type { Redis } from 'ioredis';

/** Long enough for any turn (retries on other workers included); the counters then expire. */
const KEPT_MS = 6 * 3_600_000;

/**
 * Check and claim in one step, so parallel subagents on different workers can never claim past
 * the cap between a read and a write. Returns {1, output tokens left} or
 * {0, 1 = calls | 2 = output tokens | 3 = input tokens}.
 */
const CLAIM_SCRIPT = `
local calls = tonumber(redis.call('HGET', KEYS[1], 'calls') or '0')
local output = tonumber(redis.call('HGET', KEYS[1], 'output') or '0')
local input = tonumber(redis.call('HGET', KEYS[1], 'input') or '0')
if calls >= tonumber(ARGV[1]) then return {0, 1} end
if input >= tonumber(ARGV[4]) then return {0, 3} end
if output >= tonumber(ARGV[2]) then return {0, 2} end
redis.call('HINCRBY', KEYS[1], 'calls', 1)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {1, tonumber(ARGV[2]) - output}
`;

/**
 * The budget of one inbound message in a distributed deployment: its counters are a Redis hash,
 * so the gateway (which reads the spend for metrics and the daily budget) and every worker running
 * a part of the message (the main run, subagents) draw from the same allowance.
 */
export function createRedisTurnBudget(options: {
  commands: Redis;
  prefix: string;
  limits: TurnLimits;
  scope: TurnBudgetScope;
}): TurnBudget {
  const { commands, limits } = options;
  const key = `${options.prefix}:turn-budget:${options.scope.id}`;
  const counters = async (): Promise<TurnSpend> => {
    const [calls, input, output] = await commands.hmget(key, 'calls', 'input', 'output');
    return {
      modelCalls: Number(calls ?? 0),
      inputTokens: Number(input ?? 0),
      outputTokens: Number(output ?? 0),
    };
  };
  return {
    ...options.scope,
    limits,
    async claimCall(): Promise<CallClaim> {
      const [granted, value] = (await commands.eval(
        CLAIM_SCRIPT,
        1,
        key,
        limits.maxModelCalls,
        limits.maxOutputTokens,
        KEPT_MS,
        limits.maxInputTokens,
      )) as [number, number];
      if (granted === 1) return { ok: true, maxOutputTokens: value };
      return {
        ok: false,
        reason: value === 1 ? 'model_calls' : value === 3 ? 'input_tokens' : 'output_tokens',
      };
    },
    async charge(usage) {
      await commands
        .multi()
        .hincrby(key, 'input', Math.round(usage.inputTokens ?? 0))
        .hincrby(key, 'output', Math.round(usage.outputTokens ?? 0))
        .pexpire(key, KEPT_MS)
        .exec();
    },
    async exhausted(): Promise<BudgetStopReason | undefined> {
      const spent = await counters();
      const claim = decideClaim(limits, spent.modelCalls, spent.outputTokens, spent.inputTokens);
      return claim.ok ? undefined : claim.reason;
    },
    spend: counters,
  };
}
