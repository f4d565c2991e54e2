import { describe, expect, it } from 'vitest';
import { turnLimitsOf } from '../composition/distributed-runs.ts';
import { ConfigError, loadConfig } from './load-config.ts';

describe('cost settings', () => {
  it('caps every message, every person and every group by default; off turns a daily budget off', () => {
    const config = loadConfig({ env: {} });
    expect(turnLimitsOf(config)).toEqual({
      maxModelCalls: 12,
      maxOutputTokens: 8000,
      maxInputTokens: 100_000,
    });
    expect(config.cost.dailyTokensPerPerson).toBe(500_000);
    expect(config.cost.dailyTokensPerGroup).toBe(1_000_000);
    const off = loadConfig({
      env: { NEXUS_DAILY_TOKENS_PER_PERSON: 'off', NEXUS_DAILY_TOKENS_PER_GROUP: 'off' },
    });
    expect(off.cost.dailyTokensPerPerson).toBeNull();
    expect(off.cost.dailyTokensPerGroup).toBeNull();
  });

  it('reads the caps and the daily budget from the environment or the config file', () => {
    const config = loadConfig({
      env: { NEXUS_MESSAGE_MAX_MODEL_CALLS: '20', NEXUS_CONFIG: 'nexus.json' },
      readFile: () =>
        JSON.stringify({ cost: { maxOutputTokensPerMessage: 4000, dailyTokensPerPerson: 200000 } }),
    });
    expect(config.cost).toEqual({
      maxModelCallsPerMessage: 20,
      maxOutputTokensPerMessage: 4000,
      maxInputTokensPerMessage: 100_000,
      dailyTokensPerPerson: 200000,
      dailyTokensPerGroup: 1_000_000,
    });
  });

  it('names the key and the fix for a bad cap or budget', () => {
    let problems: string[] = [];
    try {
      loadConfig({
        env: { NEXUS_MESSAGE_MAX_MODEL_CALLS: '0', NEXUS_DAILY_TOKENS_PER_PERSON: 'lots' },
      });
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      problems = (error as ConfigError).problems;
    }
    expect(problems).toHaveLength(2);
    expect(problems[0]).toContain(
      'NEXUS_MESSAGE_MAX_MODEL_CALLS (config key "cost.maxModelCallsPerMessage")',
    );
    expect(problems[0]).toContain('set it to a whole number between 1 and 1000, e.g. 12');
    expect(problems[1]).toContain('NEXUS_DAILY_TOKENS_PER_PERSON (config key "cost.dailyTokensPerPerson")');
    expect(problems[1]).toContain('or off for no daily limit per person');
  });
});
