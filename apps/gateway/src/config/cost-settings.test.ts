import { describe, expect, it } from 'vitest';
import { turnLimitsOf } from '../roles/distributed-runs.ts';
import { ConfigError, loadConfig } from './load-config.ts';

describe('cost settings', () => {
  it('caps every message by default and leaves the daily budget off', () => {
    const config = loadConfig({ env: {} });
    expect(turnLimitsOf(config)).toEqual({ maxModelCalls: 12, maxOutputTokens: 8000 });
    expect(config.cost.dailyTokensPerPerson).toBeUndefined();
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
      dailyTokensPerPerson: 200000,
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
    expect(problems[1]).toContain('or unset it for no daily limit');
  });
});
