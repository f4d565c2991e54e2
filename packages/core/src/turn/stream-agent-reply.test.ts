import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { sharedTokenCounter } from '@nexus/limits-kit';
import { intentSchema, type ReplyEvent } from '@nexus/protocol';
import { type ScriptedModelServer, startScriptedModelServer } from '@nexus/testkit/llm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgent } from '../agent/agent.ts';
import { createTurnBudget } from '../cost/turn-budget.ts';
import { resolveTurnMemory } from '../memory/context/turn-memory.ts';
import { createInMemoryMemory } from '../memory/testing/in-memory-memory.ts';
import { createRecordingLogger, testIntent } from '../testing/recording-channel.ts';
import { createReplyStream } from './reply-stream.ts';
import { streamAgentReply } from './stream-agent-reply.ts';
import { emptyReply, type TurnSoFar } from './turn-so-far.ts';
import type { TurnDependencies } from './turn-types.ts';

let server: ScriptedModelServer;
beforeEach(async () => {
  server = await startScriptedModelServer();
});
afterEach(async () => {
  await server.close();
});

const intent = intentSchema.parse(testIntent({ id: 'm1', text: 'hello there' }));

async function run(
  turn: Pick<TurnSoFar, 'intent' | 'media' | 'reply'>,
  options: {
    memoryBlock?: string;
    limits?: TurnDependencies['turnLimits'];
    memory?: TurnDependencies['memory'];
  } = {},
) {
  const model = createOpenAICompatible({ baseURL: server.baseUrl, name: 'scripted' })('scripted-model');
  const limits = options.limits ?? { maxModelCalls: 12, maxOutputTokens: 8000, maxInputTokens: 100_000 };
  const events = createReplyStream();
  const seen: ReplyEvent[] = [];
  const reading = (async () => {
    for await (const event of events) seen.push(event);
  })();
  await streamAgentReply({
    turn,
    context: {
      turns: [],
      tokenCounter: sharedTokenCounter(),
      ...(options.memoryBlock ? { memoryStep: { block: options.memoryBlock } as never } : {}),
    },
    budget: createTurnBudget(limits, { id: turn.reply.replyId, channel: 'test' }),
    events,
    conversationKey: 'test:conversation-1',
    mediaOut: ['image', 'file', 'audio'],
    dependencies: {
      agent: createAgent({ model, systemPrompt: 'You are a test.' }),
      ...(options.memory ? { memory: options.memory } : {}),
      historyTokenBudget: 3000,
      turnLimits: limits,
      now: () => 42,
      shutdownSignal: new AbortController().signal,
    },
    logger: createRecordingLogger(),
  });
  events.end();
  await reading;
  return seen;
}

describe('streamAgentReply', () => {
  it('streams the model’s text as deltas between start and end, and fills the reply', async () => {
    server.enqueue({ chunks: ['Hello', ' back'] });
    const reply = emptyReply('r1');
    const events = await run({ intent, reply }, { memoryBlock: 'Known facts: likes tea' });
    expect(events).toEqual([
      { type: 'reply.start', replyId: 'r1' },
      { type: 'reply.delta', replyId: 'r1', text: 'Hello' },
      { type: 'reply.delta', replyId: 'r1', text: ' back' },
      { type: 'reply.end', replyId: 'r1', text: 'Hello back' },
    ]);
    expect(reply).toMatchObject({ text: 'Hello back', started: true, firstDeltaAt: 42 });
    const system = JSON.stringify(server.chatRequests()[0]?.body);
    expect(system).toContain('Known facts: likes tea');
  });

  it('shows what was heard in a voice note first, as part of the reply', async () => {
    server.enqueue({ chunks: ['Sure.'] });
    const reply = emptyReply('r1');
    const media = {
      text: 'call mum',
      heard: ['call mum'],
      images: [],
      documents: [],
      problems: [],
      problemsOnly: false,
    };
    const events = await run({ intent: { ...intent, text: 'call mum' }, media, reply });
    const deltas = events.filter((event) => event.type === 'reply.delta').map((event) => event.text);
    expect(deltas).toHaveLength(2);
    expect(deltas[0]).toContain('call mum');
    expect(reply.text).toBe(`${deltas[0]}Sure.`);
  });

  it('ends a reply cut short by the message’s model-call cap with an honest note', async () => {
    server.setResponder(() => ({ toolCalls: [{ name: 'recall', arguments: { query: 'tea' } }] }));
    const reply = emptyReply('r1');
    const memory = resolveTurnMemory({ port: createInMemoryMemory().port });
    const events = await run(
      { intent, reply },
      { limits: { maxModelCalls: 2, maxOutputTokens: 8000, maxInputTokens: 100_000 }, memory },
    );
    expect(reply.budgetExhausted).toBe('model_calls');
    expect(server.chatRequests()).toHaveLength(2);
    const end = events.at(-1);
    expect(end?.type).toBe('reply.end');
    expect(end?.type === 'reply.end' && end.text).toBe(reply.text);
    expect(reply.text).toContain('2 model calls');
  });
});
