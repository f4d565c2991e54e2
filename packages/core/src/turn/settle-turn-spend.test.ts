import { describe, expect, it } from 'vitest';
import { createSqliteDailyTokenBudget } from '../cost/daily-token-budget.ts';
import { createTurnBudget } from '../cost/turn-budget.ts';
import { groupMemoryId } from '../memory/memory-subject.ts';
import { createRecordingLogger } from '../testing/recording-channel.ts';
import { settleTurnSpend } from './settle-turn-spend.ts';

const NOW = Date.parse('2026-03-01T12:00:00Z');
const limits = { maxModelCalls: 5, maxOutputTokens: 1000, maxInputTokens: 100_000 };
const direct = { userId: 'test:p', channel: 'test', conversation: { id: 'd1', kind: 'direct' as const } };

describe('settleTurnSpend', () => {
  it('reads what the message spent and charges input plus output to the person’s day', async () => {
    const budget = createTurnBudget(limits, { id: 'r1', channel: 'test' });
    await budget.claimCall();
    await budget.charge({ inputTokens: 120, outputTokens: 30 });
    const dailyBudget = createSqliteDailyTokenBudget({ path: ':memory:', tokensPerDay: 1000 });
    const logger = createRecordingLogger();
    const spend = await settleTurnSpend({ budget, dailyBudget, intent: direct, finishedAt: NOW, logger });
    expect(spend).toEqual({ modelCalls: 1, inputTokens: 120, outputTokens: 30 });
    expect(dailyBudget.check('test:p', NOW).spent).toBe(150);
  });

  it('charges a group turn to the speaker and to the group', async () => {
    const budget = createTurnBudget(limits, { id: 'r2', channel: 'test' });
    await budget.claimCall();
    await budget.charge({ inputTokens: 40, outputTokens: 10 });
    const dailyBudget = createSqliteDailyTokenBudget({
      path: ':memory:',
      tokensPerDay: 1000,
      tokensPerGroupPerDay: 1000,
    });
    const intent = { userId: 'test:p', channel: 'test', conversation: { id: 'g1', kind: 'group' as const } };
    await settleTurnSpend({ budget, dailyBudget, intent, finishedAt: NOW, logger: createRecordingLogger() });
    expect(dailyBudget.check('test:p', NOW).spent).toBe(50);
    expect(dailyBudget.check(groupMemoryId('test', 'g1'), NOW).spent).toBe(50);
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
      intent: direct,
      finishedAt: NOW,
      logger,
    });
    expect(spend).toEqual({ modelCalls: 0, inputTokens: 0, outputTokens: 0 });
    expect(logger.lines.map((line) => line.message)).toContain('could not read what the message spent');
  });
});
