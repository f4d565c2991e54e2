import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import {
  APICallError,
  cosineSimilarity,
  embedMany,
  generateText,
  isStepCount,
  jsonSchema,
  streamText,
  tool,
} from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ScriptedModelServer, startScriptedModelServer } from './scripted-model-server.ts';
import type { ChatCompletionRequest } from './scripted-response.ts';

let server: ScriptedModelServer;

function providerFor(target: ScriptedModelServer, apiKey = 'test-key') {
  return createOpenAICompatible({ baseURL: target.baseUrl, name: 'scripted', apiKey, includeUsage: true });
}

function chatBody(index: number): ChatCompletionRequest {
  const recorded = server.chatRequests()[index];
  if (!recorded) throw new Error(`no chat request #${index}`);
  return recorded.body as ChatCompletionRequest;
}

async function collectDeltas(stream: AsyncIterable<{ type: string; text?: string }>) {
  const deltas: string[] = [];
  for await (const part of stream)
    if (part.type === 'text-delta' && part.text !== undefined) deltas.push(part.text);
  return deltas;
}

beforeEach(async () => {
  server = await startScriptedModelServer();
});
afterEach(async () => {
  await server.close();
});

describe('scripted model server', () => {
  it('echoes the last user message as several streamed chunks by default', async () => {
    const result = streamText({
      model: providerFor(server)('any-model'),
      prompt: 'hello there my friend',
      maxRetries: 0,
    });
    const deltas = await collectDeltas(result.stream);
    expect(deltas.length).toBeGreaterThan(2);
    expect(deltas.join('')).toBe('Echo: hello there my friend');
    expect(await result.finishReason).toBe('stop');
    expect((await result.usage).outputTokens).toBeGreaterThan(0);
    const [recorded] = server.chatRequests();
    expect(recorded?.path).toBe('/v1/chat/completions');
    expect(chatBody(0).stream).toBe(true);
    expect(recorded?.headers.authorization).toBe('Bearer test-key');
    expect(recorded?.finishedAt).toBeGreaterThanOrEqual(recorded?.receivedAt ?? Number.POSITIVE_INFINITY);
  });

  it('answers from the queue first, in order, then from the responder, streaming or not', async () => {
    server.enqueue({ chunks: ['one', ' two'] }, { text: 'second answer' });
    server.setResponder((request) => ({ text: `responder saw ${request.messages.length} message(s)` }));
    const model = providerFor(server)('any-model');
    expect(await collectDeltas(streamText({ model, prompt: 'a' }).stream)).toEqual(['one', ' two']);
    expect((await generateText({ model, prompt: 'b' })).text).toBe('second answer');
    expect((await generateText({ model, system: 'be brief', prompt: 'c' })).text).toBe(
      'responder saw 2 message(s)',
    );
    expect(chatBody(1).stream).not.toBe(true);
  });

  it('streams tool calls that the AI SDK executes, then carries the result into the next request', async () => {
    server.enqueue(
      { toolCalls: [{ name: 'lookupWeather', arguments: { city: 'Oslo' } }] },
      { text: 'It is sunny.' },
    );
    const seen: unknown[] = [];
    const result = streamText({
      model: providerFor(server)('any-model'),
      prompt: 'weather?',
      stopWhen: isStepCount(3),
      tools: {
        lookupWeather: tool({
          description: 'Weather for a city',
          inputSchema: jsonSchema<{ city: string }>({
            type: 'object',
            properties: { city: { type: 'string' } },
            required: ['city'],
          }),
          execute: async (input) => {
            seen.push(input);
            return { forecast: 'sunny' };
          },
        }),
      },
    });
    expect((await collectDeltas(result.stream)).join('')).toBe('It is sunny.');
    expect(seen).toEqual([{ city: 'Oslo' }]);
    const second = chatBody(1);
    const toolMessage = second.messages.find((message) => message.role === 'tool');
    expect(toolMessage?.content).toContain('sunny');
    expect(chatBody(0).tools).toHaveLength(1);
  });

  it('returns tool calls in non-streaming completions too', async () => {
    server.enqueue({ toolCalls: [{ id: 'call_fixed', name: 'ping', arguments: '{"count":2}' }] });
    const result = await generateText({
      model: providerFor(server)('any-model'),
      prompt: 'ping twice',
      tools: { ping: tool({ inputSchema: jsonSchema<{ count: number }>({ type: 'object' }) }) },
    });
    expect(result.toolCalls).toMatchObject([
      { toolCallId: 'call_fixed', toolName: 'ping', input: { count: 2 } },
    ]);
    expect(result.finishReason).toBe('tool-calls');
  });

  it('turns a scripted status into a real HTTP error with its body', async () => {
    server.enqueue({ status: 503, errorBody: { error: { message: 'overloaded', type: 'server_error' } } });
    const error = await generateText({ model: providerFor(server)('m'), prompt: 'x', maxRetries: 0 }).catch(
      (caught: unknown) => caught,
    );
    expect(APICallError.isInstance(error)).toBe(true);
    expect((error as APICallError).statusCode).toBe(503);
    expect((error as APICallError).message).toContain('overloaded');
    expect((error as APICallError).isRetryable).toBe(true);
  });

  it('rejects other API keys with an OpenAI-style 401 when a key is configured', async () => {
    const guarded = await startScriptedModelServer({ apiKey: 'right' });
    try {
      const error = await generateText({
        model: providerFor(guarded, 'wrong')('m'),
        prompt: 'x',
        maxRetries: 0,
      }).catch((caught: unknown) => caught);
      expect((error as APICallError).statusCode).toBe(401);
      expect((error as APICallError).isRetryable).toBe(false);
      expect((await generateText({ model: providerFor(guarded, 'right')('m'), prompt: 'ok' })).text).toBe(
        'Echo: ok',
      );
    } finally {
      await guarded.close();
    }
  });

  it('returns deterministic normalised embeddings where shared words mean similarity', async () => {
    const model = providerFor(server).embeddingModel('embedder');
    const texts = ['I like green tea', 'green tea is what I like', 'the train leaves at noon'];
    const first = await embedMany({ model, values: texts });
    const second = await embedMany({ model, values: texts });
    expect(first.embeddings).toEqual(second.embeddings);
    const [tea, teaAgain, train] = first.embeddings as [number[], number[], number[]];
    expect(tea).toHaveLength(64);
    expect(Math.hypot(...tea)).toBeCloseTo(1, 6);
    expect(cosineSimilarity(tea, teaAgain)).toBeGreaterThan(0.7);
    expect(cosineSimilarity(tea, train)).toBeLessThan(cosineSimilarity(tea, teaAgain) - 0.4);
  });

  it('lists models', async () => {
    const response = await fetch(`${server.baseUrl}/models`);
    expect(await response.json()).toMatchObject({
      object: 'list',
      data: [{ id: 'scripted-model', object: 'model' }],
    });
  });

  it('hangs until the client aborts, and never answers', async () => {
    server.enqueue({ hang: true });
    const controller = new AbortController();
    const pending = generateText({
      model: providerFor(server)('m'),
      prompt: 'x',
      abortSignal: controller.signal,
    });
    while (server.chatRequests().length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    await expect(pending).rejects.toThrow();
    while (server.chatRequests()[0]?.finishedAt === undefined)
      await new Promise((resolve) => setTimeout(resolve, 5));
    expect(server.chatRequests()[0]?.abortedByClient).toBe(true);
  });

  it('drops the connection mid-stream when asked', async () => {
    server.enqueue({ chunks: ['partial'], dropConnection: true, chunkDelayMs: 5 });
    const result = streamText({ model: providerFor(server)('m'), prompt: 'x', maxRetries: 0 });
    const types: string[] = [];
    await (async () => {
      for await (const part of result.stream) types.push(part.type);
    })().catch(() => types.push('thrown'));
    expect(types.some((type) => type === 'error' || type === 'thrown')).toBe(true);
    expect(server.chatRequests()[0]?.abortedByClient).toBeUndefined();
  });

  it('waits the scripted delay before answering and resets its state', async () => {
    server.enqueue({ text: 'late', delayMs: 40 });
    await generateText({ model: providerFor(server)('m'), prompt: 'x' });
    const [recorded] = server.chatRequests();
    expect((recorded?.finishedAt ?? 0) - (recorded?.receivedAt ?? 0)).toBeGreaterThanOrEqual(35);
    expect(recorded?.abortedByClient).toBeUndefined();
    server.enqueue({ text: 'never used' });
    server.setResponder(() => ({ text: 'never used either' }));
    server.reset();
    expect(server.requests).toHaveLength(0);
    expect((await generateText({ model: providerFor(server)('m'), prompt: 'fresh' })).text).toBe(
      'Echo: fresh',
    );
  });
});
