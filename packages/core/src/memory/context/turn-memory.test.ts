import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { IntentInput, MemoryPort } from '@nexus/protocol';
import {
  type ChatCompletionRequest,
  type ScriptedModelServer,
  startScriptedModelServer,
} from '@nexus/testkit/llm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgent } from '../../agent/agent.ts';
import { createNexusCore, type NexusCore, type NexusCoreOptions } from '../../nexus-core.ts';
import { createSqliteSessionStore } from '../../session-store/sqlite-session-store.ts';
import {
  createRecordingChannel,
  createRecordingLogger,
  testIntent,
} from '../../testing/recording-channel.ts';
import type { TurnReport } from '../../turn/run-turn.ts';
import { createInMemoryMemory } from '../testing/in-memory-memory.ts';
import { DEFAULT_MEMORY_STATUS_TEXT } from './turn-memory.ts';

let server: ScriptedModelServer;
const cores: NexusCore[] = [];

beforeEach(async () => {
  server = await startScriptedModelServer();
});
afterEach(async () => {
  await Promise.all(cores.splice(0).map((core) => core.shutdown({ deadlineMs: 1000 })));
  await server.close();
});

function setUp(options: Partial<NexusCoreOptions> & { memory: NonNullable<NexusCoreOptions['memory']> }) {
  const channel = createRecordingChannel();
  const logger = createRecordingLogger();
  const reports: TurnReport[] = [];
  const model = createOpenAICompatible({ baseURL: server.baseUrl, name: 'scripted' })('scripted-model');
  const core = createNexusCore({
    sessionStore: createSqliteSessionStore({ path: ':memory:' }),
    agent: createAgent({ model, systemPrompt: 'You are a test.' }),
    logger,
    onTurnFinished: (report) => reports.push(report),
    ...options,
  });
  core.registerChannel(channel.adapter);
  cores.push(core);
  return { core, channel, logger, reports };
}

function systemPromptOf(index: number): string {
  const body = server.chatRequests()[index]?.body as ChatCompletionRequest | undefined;
  const system = body?.messages.find((message) => message.role === 'system');
  return typeof system?.content === 'string' ? system.content : '';
}

function intentFrom(userId: string, id: string, text: string, conversationId: string): IntentInput {
  return { ...testIntent({ id, text, conversationId }), userId, sender: { platformId: userId } };
}

/** A memory service that never answers until it is told to stop. */
function hangingMemory(base: MemoryPort, seen: AbortSignal[]): MemoryPort {
  const hang = (signal: AbortSignal | undefined) =>
    new Promise<never>((_, reject) => {
      if (signal) seen.push(signal);
      signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
  return {
    ...base,
    context: (request) => hang(request.abortSignal),
    list: (request) => hang(request.abortSignal),
  };
}

describe('memory step in a turn', () => {
  it('puts the Known Facts block in the system prompt ahead of history, for the person speaking only', async () => {
    const memory = createInMemoryMemory();
    await memory.port.add({ userId: 'test:ana', content: 'Is vegetarian', category: 'preference' });
    await memory.port.add({ userId: 'test:ana', content: 'Lives in Lisbon', category: 'fact' });
    await memory.port.add({ userId: 'test:ben', content: 'Is allergic to peanuts', category: 'fact' });
    const { core, reports } = setUp({ memory: { port: memory.port } });

    await core.intake(intentFrom('test:ana', 'a1', 'what should I cook tonight?', 'group-1'));
    await core.whenIdle();
    await core.intake(intentFrom('test:ben', 'b1', 'what should I cook tonight?', 'group-1'));
    await core.whenIdle();

    const anaPrompt = systemPromptOf(0);
    expect(anaPrompt.startsWith('You are a test.\n\n## Known Facts (from memory)\n')).toBe(true);
    expect(anaPrompt).toContain('- Is vegetarian (preference, today, inferred)');
    expect(anaPrompt).toContain('- Lives in Lisbon (fact, today, inferred)');
    expect(anaPrompt).not.toContain('peanuts');
    const benBody = server.chatRequests()[1]?.body as ChatCompletionRequest;
    expect(JSON.stringify(benBody)).toContain('Is allergic to peanuts');
    expect(JSON.stringify(benBody)).not.toMatch(/vegetarian|Lisbon/u);
    // History follows the system prompt: Ana's turn is in Ben's request, after the block.
    expect(benBody.messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(reports[0]?.memory).toMatchObject({ outcome: 'ok', memoriesUsed: 2 });
    expect(reports[0]?.memory?.scopesFound).toEqual(expect.arrayContaining(['profile']));
    expect(
      memory.calls.filter((call) => call.method === 'context').map((call) => call.options.userId),
    ).toEqual(['test:ana', 'test:ben']);
  });

  it('gives a returning person their standing facts from the first reply of a new conversation on', async () => {
    const memory = createInMemoryMemory();
    await memory.port.add({ userId: 'test:person-1', content: 'Is vegetarian', category: 'preference' });
    await memory.port.add({ userId: 'test:person-1', content: 'Lives in Lisbon', category: 'fact' });
    const { core } = setUp({ memory: { port: memory.port } });

    await core.intake(testIntent({ id: 'm1', text: 'suggest a dinner place', conversationId: 'new' }));
    await core.whenIdle();
    await core.intake(testIntent({ id: 'm2', text: 'thanks!', conversationId: 'new' }));
    await core.whenIdle();

    // Nothing in "suggest a dinner place" matches the facts; they come as the person's profile.
    const first = systemPromptOf(0);
    expect(first).toContain('## Known Facts (from memory)');
    expect(first.indexOf('Is vegetarian')).toBeLessThan(first.indexOf('Lives in Lisbon'));
    expect(systemPromptOf(1)).toBe(first);
  });

  it('replies without memory when the service hangs: status after the threshold, a warning, the call aborted', async () => {
    const memory = createInMemoryMemory();
    const signals: AbortSignal[] = [];
    const { core, channel, logger, reports } = setUp({
      memory: { port: hangingMemory(memory.port, signals), budgetMs: 150, statusAfterMs: 10 },
    });

    await core.intake(testIntent({ id: 'm1', text: 'hello', conversationId: 'c1' }));
    await core.whenIdle();

    const types = channel.deliveries[0]?.events.map((event) => event.type);
    expect(types?.slice(0, 3)).toEqual(['typing', 'status', 'reply.start']);
    expect(channel.deliveries[0]?.events[1]).toEqual({ type: 'status', text: DEFAULT_MEMORY_STATUS_TEXT });
    expect(channel.replyTextOf('m1')).toBe('Echo: hello');
    expect(systemPromptOf(0)).toBe('You are a test.');
    // One call: the standing facts come with the context block.
    expect(signals.length).toBe(1);
    expect(signals.every((signal) => signal.aborted)).toBe(true);
    const warning = logger.lines.find(
      (line) => line.level === 'warn' && /memory context/u.test(line.message ?? ''),
    );
    expect(warning?.object).toMatchObject({ memory: { outcome: 'timeout', slow: true }, budgetMs: 150 });
    expect(reports[0]).toMatchObject({ outcome: 'ok', memory: { outcome: 'timeout' } });
    expect(reports[0]?.memory).toMatchObject({
      scopesMissing: ['context', 'profile'],
      scopesTimedOut: ['context', 'profile'],
    });
  });

  it('replies without memory when the service fails quickly: a warning naming the cause, no status', async () => {
    const memory = createInMemoryMemory();
    await memory.port.add({
      userId: 'test:person-1',
      content: 'Prefers short answers',
      category: 'preference',
    });
    const failingContext: MemoryPort = {
      ...memory.port,
      context: async () => {
        throw new Error('connect ECONNREFUSED 127.0.0.1:7400');
      },
    };
    const { core, channel, logger, reports } = setUp({ memory: { port: failingContext } });

    await core.intake(testIntent({ id: 'm1', text: 'hi', conversationId: 'c1' }));
    await core.whenIdle();

    // The standing facts come with the block memory builds, so a failed context call has none.
    expect(systemPromptOf(0)).toBe('You are a test.');
    expect(channel.deliveries[0]?.events.some((event) => event.type === 'status')).toBe(false);
    expect(reports[0]?.memory).toMatchObject({
      outcome: 'error',
      scopesMissing: ['context', 'profile'],
      scopesTimedOut: [],
    });
    const warning = logger.lines.find(
      (line) => line.level === 'warn' && /memory context/u.test(line.message ?? ''),
    );
    expect(JSON.stringify(warning?.object)).toContain('ECONNREFUSED');
  });
});
