import { intentSchema } from '@nexus/protocol';
import { describe, expect, it } from 'vitest';
import { createSqliteDailyTokenBudget, dailyBudgetReply } from '../cost/daily-token-budget.ts';
import { createRecordingLogger, testIntent } from '../testing/recording-channel.ts';
import { checkTurnAllowance } from './check-turn-allowance.ts';

const intent = intentSchema.parse(testIntent({ id: 'm1' }));
const NOW = Date.parse('2026-03-01T12:00:00Z');

function budgetWithSpent(tokens: number) {
  const budget = createSqliteDailyTokenBudget({ path: ':memory:', tokensPerDay: 100 });
  if (tokens > 0) budget.charge(intent.userId, tokens, NOW);
  return budget;
}

describe('checkTurnAllowance', () => {
  it('lets a person under the daily allowance through, and anyone when there is no allowance', () => {
    const logger = createRecordingLogger();
    const shutdownSignal = new AbortController().signal;
    for (const dailyBudget of [budgetWithSpent(60), undefined])
      expect(
        checkTurnAllowance({ intent, startedAt: NOW, dailyBudget, shutdownSignal, logger }),
      ).toBeUndefined();
  });

  it('answers a person over the allowance with the refusal, marked daily_tokens', () => {
    const dailyBudget = budgetWithSpent(150);
    const shutdownSignal = new AbortController().signal;
    const logger = createRecordingLogger();
    const refusal = checkTurnAllowance({ intent, startedAt: NOW, dailyBudget, shutdownSignal, logger });
    const expected = dailyBudgetReply(dailyBudget.check(intent.userId, NOW), NOW);
    expect(refusal).toEqual({ kind: 'answered', text: expected, budgetExhausted: 'daily_tokens' });
  });

  it('stops with the shutdown reason first, even for a person over the allowance', () => {
    const shutdown = new AbortController();
    const reason = new Error('shutting down');
    shutdown.abort(reason);
    const logger = createRecordingLogger();
    expect(() =>
      checkTurnAllowance({
        intent,
        startedAt: NOW,
        dailyBudget: budgetWithSpent(150),
        shutdownSignal: shutdown.signal,
        logger,
      }),
    ).toThrow(reason);
  });

  it('lets the turn go ahead when the allowance cannot be read, and logs it', () => {
    const dailyBudget = budgetWithSpent(0);
    const broken = {
      ...dailyBudget,
      check: () => {
        throw new Error('disk gone');
      },
    };
    const logger = createRecordingLogger();
    const shutdownSignal = new AbortController().signal;
    expect(
      checkTurnAllowance({ intent, startedAt: NOW, dailyBudget: broken, shutdownSignal, logger }),
    ).toBeUndefined();
    expect(logger.lines.map((line) => line.message)).toContain('could not read the daily token budget');
  });
});
