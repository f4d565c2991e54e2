import { approximateTokenCounter } from '@nexus/limits-kit';
import type { MemoryPort } from '@nexus/protocol';
import { describe, expect, it } from 'vitest';
import { createRecordingLogger } from '../../testing/recording-channel.ts';
import { createInMemoryMemory } from '../testing/in-memory-memory.ts';
import { runMemoryStep } from './run-memory-step.ts';

function stepOptions(memory: MemoryPort, logger = createRecordingLogger()) {
  return {
    memory,
    userId: 'u1',
    query: 'what do I like?',
    sessionId: 'c1',
    budgetMs: 1000,
    tokenBudget: 500,
    limit: 10,
    includeProfile: true,
    includeSessionSummary: true,
    profileTokenBudget: 200,
    profileLimit: 5,
    tokenCounter: approximateTokenCounter,
    now: Date.now,
    logger,
  };
}

describe('runMemoryStep', () => {
  it('uses the context that answered when the summary fails: partial, with the cause logged', async () => {
    const base = createInMemoryMemory();
    await base.port.add({ userId: 'u1', content: 'Likes green tea', category: 'preference' });
    const memory: MemoryPort = {
      ...base.port,
      list: async () => {
        throw new Error('summary store unavailable');
      },
    };
    const logger = createRecordingLogger();
    const { block, report } = await runMemoryStep(stepOptions(memory, logger));
    expect(block).toContain('Likes green tea');
    expect(report).toMatchObject({
      outcome: 'partial',
      scopesFound: ['profile'],
      scopesMissing: ['summary'],
      scopesTimedOut: [],
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(logger.lines.find((line) => line.level === 'warn')?.object).toMatchObject({
      errors: ['Error: summary store unavailable'],
    });
  });

  it('is an error, not a throw, when the memory service throws before answering', async () => {
    const base = createInMemoryMemory();
    const memory: MemoryPort = {
      ...base.port,
      context: () => {
        throw new Error('no connection');
      },
      list: () => {
        throw new Error('no connection');
      },
    };
    const { block, report } = await runMemoryStep(stepOptions(memory));
    expect(block).toBe('');
    expect(report).toMatchObject({
      outcome: 'error',
      scopesMissing: ['context', 'profile', 'summary'],
      scopesTimedOut: [],
    });
  });
});
