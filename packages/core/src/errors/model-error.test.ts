import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { NexusError } from '@nexus/protocol';
import { type ScriptedModelServer, startScriptedModelServer } from '@nexus/testkit/llm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgent } from '../agent/agent.ts';
import { MODEL_ERROR_MESSAGES, toModelError } from './model-error.ts';

let server: ScriptedModelServer;
beforeEach(async () => {
  server = await startScriptedModelServer();
});
afterEach(async () => {
  await server.close();
});

/** Runs the real agent against a base URL and returns what the failure maps to. */
async function failureOf(baseURL: string, options: { maxRetries?: number; abortSignal?: AbortSignal } = {}) {
  const model = createOpenAICompatible({ baseURL, name: 'scripted', apiKey: 'key' })('m');
  const agent = createAgent({ model, maxRetries: options.maxRetries ?? 0 });
  const deltas: string[] = [];
  try {
    for await (const part of agent.run({
      history: [],
      userText: 'hi',
      ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
    })) {
      if (part.type === 'text-delta') deltas.push(part.text);
    }
  } catch (error) {
    return { error: toModelError(error, { shuttingDown: options.abortSignal?.aborted ?? false }), deltas };
  }
  throw new Error('the run did not fail');
}

describe('model errors', () => {
  it('maps 403 to model_rejected and other 4xx to a settings hint, neither retryable', async () => {
    server.enqueue({ status: 403 }, { status: 404, errorBody: { error: { message: 'model not found' } } });
    expect((await failureOf(server.baseUrl)).error).toMatchObject({
      code: 'model_rejected',
      retryable: false,
    });
    const notFound = (await failureOf(server.baseUrl)).error;
    expect(notFound).toMatchObject({
      code: 'model_rejected',
      message: MODEL_ERROR_MESSAGES.model_rejected_request,
    });
  });

  it('maps 429 and an unreachable provider to a retryable model_unavailable', async () => {
    server.enqueue({ status: 429 });
    expect((await failureOf(server.baseUrl)).error).toMatchObject({
      code: 'model_unavailable',
      retryable: true,
    });
    const closed = await startScriptedModelServer();
    await closed.close();
    const unreachable = await failureOf(closed.baseUrl);
    expect(unreachable.error).toMatchObject({ code: 'model_unavailable', retryable: true });
    expect(unreachable.error.cause).toBeDefined();
  });

  it('maps a connection dropped mid-stream to model_unavailable after the partial text', async () => {
    server.enqueue({ chunks: ['partial ', 'answer'], dropConnection: true, chunkDelayMs: 5 });
    const { error, deltas } = await failureOf(server.baseUrl);
    expect(deltas.join('')).toBe('partial answer');
    expect(error).toMatchObject({ code: 'model_unavailable', retryable: true });
  });

  it('maps an abort during shutdown to shutting_down and keeps NexusErrors as they are', async () => {
    server.enqueue({ hang: true });
    const controller = new AbortController();
    const pending = failureOf(server.baseUrl, { abortSignal: controller.signal });
    while (server.chatRequests().length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort(new NexusError({ code: 'shutting_down', message: 'bye', retryable: true }));
    expect((await pending).error).toMatchObject({ code: 'shutting_down', retryable: true });
    const original = new NexusError({ code: 'memory_unavailable', message: 'x' });
    expect(toModelError(original, { shuttingDown: false })).toBe(original);
    expect(toModelError(new Error('boom'), { shuttingDown: false })).toMatchObject({
      code: 'internal',
      message: MODEL_ERROR_MESSAGES.internal,
    });
  });
});
