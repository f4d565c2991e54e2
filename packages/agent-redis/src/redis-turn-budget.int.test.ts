import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createRedisTurnBudget } from './redis-turn-budget.ts';

const commands = new Redis('redis://127.0.0.1:6379', { lazyConnect: true, maxRetriesPerRequest: 1 });
afterAll(async () => {
  await commands.quit();
});

describe('the Redis turn budget', () => {
  it('refuses the next call once the input tokens of the calls so far reach the cap', async () => {
    const prefix = `nexus-test-${randomBytes(6).toString('hex')}`;
    const budget = createRedisTurnBudget({
      commands,
      prefix,
      limits: { maxModelCalls: 12, maxOutputTokens: 8000, maxInputTokens: 1000 },
      scope: { id: 'turn-1', channel: 'test' },
    });
    expect(await budget.claimCall()).toEqual({ ok: true, maxOutputTokens: 8000 });
    await budget.charge({ inputTokens: 600, outputTokens: 10 });
    expect(await budget.claimCall()).toEqual({ ok: true, maxOutputTokens: 7990 });
    await budget.charge({ inputTokens: 700, outputTokens: 10 });
    expect(await budget.claimCall()).toEqual({ ok: false, reason: 'input_tokens' });
    expect(await budget.exhausted()).toBe('input_tokens');
    expect(await budget.spend()).toEqual({ modelCalls: 2, inputTokens: 1300, outputTokens: 20 });
    await commands.del(`${prefix}:turn-budget:turn-1`);
  });
});
