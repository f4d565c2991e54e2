import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './load-config.ts';

function problemOf(env: Record<string, string>): string {
  try {
    loadConfig({ env });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toHaveLength(1);
    return problems[0] ?? '';
  }
  throw new Error('expected a ConfigError');
}

describe('NEXUS_GROUP_PERSONAL_MEMORY', () => {
  it('is off unless set: no group gets personal memory', () => {
    expect(loadConfig({ env: {} }).memory.groupPersonalMemory).toBeUndefined();
    expect(loadConfig({ env: { NEXUS_GROUP_PERSONAL_MEMORY: 'off' } }).memory.groupPersonalMemory).toEqual(
      [],
    );
  });

  it('reads groups named with their one person', () => {
    const config = loadConfig({
      env: {
        NEXUS_GROUP_PERSONAL_MEMORY:
          'telegram:-1001234567890=telegram:42, whatsapp:1203630@g.us=person:telegram:42',
      },
    });
    expect(config.memory.groupPersonalMemory).toEqual([
      { conversation: 'telegram:-1001234567890', userId: 'telegram:42' },
      { conversation: 'whatsapp:1203630@g.us', userId: 'person:telegram:42' },
    ]);
  });

  it.each([
    ['on', 'a mode that does not exist'],
    ['telegram:-100123', 'a group without its person'],
    ['telegram:*=telegram:42', 'a wildcard group'],
    ['*=telegram:42', 'every group'],
    ['telegram:-100123=telegram:*', 'a wildcard person'],
    ['telegram:-100123=group:telegram:-100123', 'a group id as the person'],
  ])('refuses %s (%s), naming the key and the fix', (value) => {
    const problem = problemOf({ NEXUS_GROUP_PERSONAL_MEMORY: value });
    expect(problem).toContain('NEXUS_GROUP_PERSONAL_MEMORY');
    expect(problem).toContain('memory.groupPersonalMemory');
    expect(problem).toContain('<channel>:<group id>=<person id>');
    expect(problem).toContain('telegram:-1001234567890=telegram:123456789');
  });
});
