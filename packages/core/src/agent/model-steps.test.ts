import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { type ScriptedModelServer, startScriptedModelServer } from '@nexus/testkit/llm';
import { tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRecordingLogger } from '../testing/recording-channel.ts';
import { type AgentPart, createAgent } from './agent.ts';
import { runModelSteps } from './model-steps.ts';

let server: ScriptedModelServer;
beforeEach(async () => {
  server = await startScriptedModelServer();
});
afterEach(async () => {
  await server.close();
});

const model = () => createOpenAICompatible({ baseURL: server.baseUrl, name: 'scripted', apiKey: 'key' })('m');
const calls: unknown[] = [];
const tools = {
  note: tool({
    description: 'Notes a fact.',
    inputSchema: z.object({ fact: z.string() }),
    execute: async ({ fact }) => {
      calls.push(fact);
      if (fact === 'boom') throw new Error('the notebook is full');
      return { noted: fact };
    },
  }),
};

async function run(maxSteps = 5, maxRetries = 0): Promise<AgentPart[]> {
  const parts: AgentPart[] = [];
  for await (const part of createAgent({ model: model(), tools, maxSteps, maxRetries }).run({
    history: [],
    userText: 'hi',
  }))
    parts.push(part);
  return parts;
}

/** The tool messages of the n-th chat request, as the model server received them. */
function toolMessages(request: number) {
  const body = server.chatRequests()[request]?.body as { messages: { role: string; content: string }[] };
  return body.messages.filter((message) => message.role === 'tool');
}

describe('the model step loop', () => {
  it('runs the tool the model asked for and sends its result back in the next request', async () => {
    calls.length = 0;
    server.enqueue(
      { toolCalls: [{ id: 'c1', name: 'note', arguments: { fact: 'likes tea' } }] },
      { text: 'Noted.' },
    );
    const parts = await run();
    expect(calls).toEqual(['likes tea']);
    expect(parts.at(-1)).toMatchObject({ type: 'finish', text: 'Noted.' });
    expect(server.chatRequests()).toHaveLength(2);
    expect(toolMessages(1)).toEqual([
      expect.objectContaining({ tool_call_id: 'c1', content: JSON.stringify({ noted: 'likes tea' }) }),
    ]);
  });

  it('sends a failing tool, an unknown tool and input against the schema back as errors, and still answers', async () => {
    calls.length = 0;
    server.enqueue(
      {
        toolCalls: [
          { id: 'c1', name: 'note', arguments: { fact: 'boom' } },
          { id: 'c2', name: 'missing_tool', arguments: {} },
          { id: 'c3', name: 'note', arguments: { wrong: 1 } },
        ],
      },
      { text: 'Sorry, that did not work.' },
    );
    const parts = await run();
    expect(calls).toEqual(['boom']);
    expect(parts.at(-1)).toMatchObject({ type: 'finish', text: 'Sorry, that did not work.' });
    const answers = toolMessages(1);
    expect(
      answers.map((message) => (message as unknown as { tool_call_id: string }).tool_call_id).sort(),
    ).toEqual(['c1', 'c2', 'c3']);
    expect(answers.find((message) => JSON.stringify(message).includes('c1'))?.content).toContain(
      'the notebook is full',
    );
  });

  it('stops at the step limit while the model still asks for tools', async () => {
    server.setResponder(() => ({ toolCalls: [{ name: 'note', arguments: { fact: 'again' } }] }));
    const parts = await run(2);
    expect(server.chatRequests()).toHaveLength(2);
    expect(parts.at(-1)).toMatchObject({ type: 'finish', text: '' });
  });

  it('retries a failed call once before any output, as the SDK retries', async () => {
    server.enqueue({ status: 503 }, { text: 'Back.' });
    const parts = await run(5, 1);
    expect(server.chatRequests()).toHaveLength(2);
    expect(parts.at(-1)).toMatchObject({ type: 'finish', text: 'Back.' });
  });

  it('logs each distinct warning the provider gives about a call, once', async () => {
    const warning = { type: 'unsupported' as const, feature: 'topK' };
    const model = new MockLanguageModelV3({
      doStream: async () => ({
        stream: new ReadableStream({
          start(controller) {
            controller.enqueue({ type: 'stream-start', warnings: [warning] });
            controller.enqueue({ type: 'text-start', id: '0' });
            controller.enqueue({ type: 'text-delta', id: '0', delta: 'Hi.' });
            controller.enqueue({ type: 'text-end', id: '0' });
            controller.enqueue({
              type: 'finish',
              finishReason: { unified: 'stop', raw: 'stop' },
              usage: {
                inputTokens: { total: 3, noCache: 3, cacheRead: 0, cacheWrite: 0 },
                outputTokens: { total: 1, text: 1, reasoning: 0 },
              },
            });
            controller.close();
          },
        }),
      }),
    });
    const logger = createRecordingLogger();
    const agent = createAgent({ model, logger });
    for (let run = 0; run < 2; run += 1)
      for await (const part of agent.run({ history: [], userText: 'hi' }))
        if (part.type === 'finish') expect(part.text).toBe('Hi.');
    const warned = logger.lines.filter((line) => line.level === 'warn');
    expect(warned).toEqual([expect.objectContaining({ object: { warning } })]);
  });

  it("cancels the model's stream when its reader stops early, and reads it to the end otherwise", async () => {
    const cancelled: unknown[] = [];
    const streamingModel = () =>
      new MockLanguageModelV3({
        doStream: async () => {
          let sent = 0;
          return {
            stream: new ReadableStream({
              pull(controller) {
                sent += 1;
                if (sent === 1) controller.enqueue({ type: 'text-start', id: '0' });
                else if (sent <= 4) controller.enqueue({ type: 'text-delta', id: '0', delta: `w${sent} ` });
                else if (sent === 5) controller.enqueue({ type: 'text-end', id: '0' });
                else {
                  controller.enqueue({
                    type: 'finish',
                    finishReason: { unified: 'stop', raw: 'stop' },
                    usage: {
                      inputTokens: { total: 3, noCache: 3, cacheRead: 0, cacheWrite: 0 },
                      outputTokens: { total: 3, text: 3, reasoning: 0 },
                    },
                  });
                  controller.close();
                }
              },
              cancel(reason) {
                cancelled.push(reason ?? 'cancelled');
              },
            }),
          };
        },
      });
    const steps = (model: MockLanguageModelV3) =>
      runModelSteps({
        model,
        instructions: 'test',
        messages: [{ role: 'user', content: 'hi' }],
        tools: undefined,
        maxSteps: 1,
        maxRetries: 0,
        abortSignal: new AbortController().signal,
      });

    for await (const part of steps(streamingModel())) if (part.type === 'text-delta') break;
    // The cancel travels up the SDK's pipe asynchronously.
    for (let wait = 0; wait < 100 && cancelled.length === 0; wait += 1)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(cancelled).toHaveLength(1);

    const types: string[] = [];
    for await (const part of steps(streamingModel())) types.push(part.type);
    expect(types).toEqual(['text-delta', 'text-delta', 'text-delta', 'finish']);
    expect(cancelled).toHaveLength(1);
  });
});
