import { describe, expect, it } from 'vitest';
import { createSqliteDailyTokenBudget } from '../cost/daily-token-budget.ts';
import { createTurnBudget } from '../cost/turn-budget.ts';
import { createRecordingLogger } from '../testing/recording-channel.ts';
import { settleTurnSpend } from './settle-turn-spend.ts';

const NOW = Date.parse('2026-03-01T12:00:00Z');
const limits = { maxModelCalls: 5, maxOutputTokens: 1000 };

describe('settleTurnSpend', () => {
  it('reads what the message spent and charges input plus output to the person’s day', async () => {
    const budget = createTurnBudget(limits, { id: 'r1', channel: 'test' });
    await budget.claimCall();
    await budget.charge({ inputTokens: 120, outputTokens: 30 });
    const dailyBudget = createSqliteDailyTokenBudget({ path: ':memory:', tokensPerDay: 1000 });
    const logger = createRecordingLogger();
    const spend = await settleTurnSpend({ budget, dailyBudget, userId: 'test:p', finishedAt: NOW, logger });
    expect(spend).toEqual({ modelCalls: 1, inputTokens: 120, outputTokens: 30 });
    expect(dailyBudget.check('test:p', NOW).spent).toBe(150);
  });

  it('counts nothing spent when the counters cannot be read, and says so in the log', async () => {
    const budget = {
      ...createTurnBudget(limits, { id: 'r1', channel: 'test' }),
      spend: () => Promise.reject(new Error('redis down')),
    };
    const logger = createRecordingLogger();
    const spend = await settleTurnSpend({
      budget,
      dailyBudget: undefined,
      userId: 'test:p',
      finishedAt: NOW,
      logger,
    });
    expect(spend).toEqual({ modelCalls: 0, inputTokens: 0, outputTokens: 0 });
    expect(logger.lines.map((line) => line.message)).toContain('could not read what the message spent');
  });
});
