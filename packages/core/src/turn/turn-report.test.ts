import { type ErrorCode, intentSchema, NexusError } from '@nexus/protocol';
import { describe, expect, it } from 'vitest';
import { testIntent } from '../testing/recording-channel.ts';
import { turnReport } from './turn-report.ts';
import { emptyReply, type TurnSoFar } from './turn-so-far.ts';

const intent = intentSchema.parse(testIntent({ id: 'm1' }));
const spend = { modelCalls: 2, inputTokens: 300, outputTokens: 40 };
const times = { conversationKey: 'test:conversation-1', enqueuedAt: 1000, startedAt: 1250, finishedAt: 2250 };

describe('turnReport', () => {
  it('reports an answered turn: times from intake and start, first delta, memory, spend, a cap', () => {
    const turn: TurnSoFar = {
      intent,
      reply: { ...emptyReply('r1'), firstDeltaAt: 1400, budgetExhausted: 'model_calls' },
      memoryReport: {
        outcome: 'ok',
        scopesFound: ['user'],
        scopesMissing: [],
        scopesTimedOut: [],
        memoryIds: ['a'],
        memoriesUsed: 1,
        tokensUsed: 12,
        slow: false,
        durationMs: 30,
      },
    };
    expect(turnReport({ turn, ...times, spend })).toEqual({
      conversationKey: 'test:conversation-1',
      channel: 'test',
      intentId: 'm1',
      outcome: 'ok',
      queuedMs: 250,
      durationMs: 1000,
      firstDeltaMs: 150,
      memory: turn.memoryReport,
      spend,
      budgetExhausted: 'model_calls',
    });
  });

  it('calls a shutdown aborted and any other failure an error, with its code', () => {
    const failed = (code: ErrorCode): TurnSoFar => ({
      intent,
      reply: emptyReply('r1'),
      failure: new NexusError({ code, message: 'x', retryable: false }),
    });
    expect(turnReport({ turn: failed('shutting_down'), ...times, spend })).toMatchObject({
      outcome: 'aborted',
      errorCode: 'shutting_down',
    });
    const report = turnReport({ turn: failed('model_unavailable'), ...times, spend });
    expect(report).toMatchObject({ outcome: 'error', errorCode: 'model_unavailable' });
    expect(report).not.toHaveProperty('firstDeltaMs');
  });
});
