import { wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { budgetMiddleware } from './budget-middleware.ts';
import { createTurnBudget, DEFAULT_TURN_LIMITS, type TurnSpend } from './turn-budget.ts';

type StreamPart = { type: string; [key: string]: unknown };

/** A model streaming `parts`, then failing with `failure` if given, else ending. */
function modelStreaming(parts: StreamPart[], failure?: Error) {
  let index = 0;
  return new MockLanguageModelV3({
    doStream: async () => ({
      // One part per read, then the end or the failure: a failure does not discard parts read.
      stream: new ReadableStream({
        pull(controller) {
          const part = parts[index];
          index += 1;
          if (part) controller.enqueue(part);
          else if (failure) controller.error(failure);
          else controller.close();
        },
      }) as never,
    }),
  });
}

const finish = {
  type: 'finish',
  finishReason: { unified: 'stop', raw: 'stop' },
  usage: {
    inputTokens: { total: 30, noCache: 30, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 7, text: 7, reasoning: 0 },
  },
};

async function streamThrough(model: MockLanguageModelV3) {
  const budget = createTurnBudget(DEFAULT_TURN_LIMITS, { id: 'm1', channel: 'test' });
  const spend: TurnSpend = { modelCalls: 0, inputTokens: 0, outputTokens: 0 };
  const guarded = wrapLanguageModel({ model, middleware: budgetMiddleware(budget, spend) });
  const { stream } = await guarded.doStream({
    prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
  });
  const seen: StreamPart[] = [];
  let failure: unknown;
  try {
    for await (const part of stream as unknown as AsyncIterable<StreamPart>) seen.push(part);
  } catch (error) {
    failure = error;
  }
  return { seen, failure, spend, budgetSpend: await budget.spend() };
}

describe('budgetMiddleware', () => {
  it('passes every part on in order and charges the usage the provider reports, once', async () => {
    const parts = [
      { type: 'stream-start', warnings: [] },
      { type: 'text-start', id: '0' },
      { type: 'text-delta', id: '0', delta: 'Hello ' },
      { type: 'text-delta', id: '0', delta: 'there.' },
      { type: 'text-end', id: '0' },
      finish,
    ];
    const { seen, failure, spend, budgetSpend } = await streamThrough(modelStreaming(parts));
    expect(failure).toBeUndefined();
    expect(seen).toEqual(parts);
    expect(spend).toEqual({ modelCalls: 1, inputTokens: 30, outputTokens: 7 });
    expect(budgetSpend).toEqual(spend);
  });

  it("reports the provider's failure and charges what was streamed before it, estimated", async () => {
    const parts = [
      { type: 'text-start', id: '0' },
      { type: 'text-delta', id: '0', delta: 'x'.repeat(40) },
    ];
    const { seen, failure, spend } = await streamThrough(
      modelStreaming(parts, new Error('connection reset')),
    );
    expect(seen).toEqual(parts);
    expect(String(failure)).toMatch(/connection reset/);
    expect(spend.modelCalls).toBe(1);
    expect(spend.outputTokens).toBe(10);
    expect(spend.inputTokens).toBeGreaterThan(0);
  });
});
