import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import {
  type ChatCompletionRequest,
  type RecordedModelRequest,
  type ScriptedModelServer,
  type ScriptedResponse,
  startScriptedModelServer,
} from '@nexus/testkit/llm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgent } from '../agent/agent.ts';
import { createInMemoryMemory } from '../memory/testing/in-memory-memory.ts';
import { createNexusCore, type NexusCore } from '../nexus-core.ts';
import { createSqliteSessionStore } from '../session-store/sqlite-session-store.ts';
import { createRecordingChannel, createRecordingLogger, testIntent } from '../testing/recording-channel.ts';
import { DEFAULT_SUBAGENT_SYSTEM_PROMPT, type SubagentSettings } from './subagent-settings.ts';

let server: ScriptedModelServer;
const cores: NexusCore[] = [];
beforeEach(async () => {
  server = await startScriptedModelServer();
});
afterEach(async () => {
  await Promise.all(cores.splice(0).map((core) => core.shutdown({ deadlineMs: 1000 })));
  await server.close();
});

const bodyOf = (request: RecordedModelRequest) => request.body as ChatCompletionRequest;
const systemOf = (request: ChatCompletionRequest) => String(request.messages[0]?.content ?? '');
const isSubagent = (request: ChatCompletionRequest) =>
  systemOf(request).startsWith(DEFAULT_SUBAGENT_SYSTEM_PROMPT);
const taskOf = (request: ChatCompletionRequest) => String(request.messages[1]?.content ?? '');
const toolMessages = (request: ChatCompletionRequest) =>
  request.messages.filter((message) => message.role === 'tool');
const toolNames = (request: ChatCompletionRequest) =>
  ((request.tools ?? []) as Array<{ function: { name: string } }>).map((tool) => tool.function.name);
const subagentRequests = () => server.chatRequests().filter((request) => isSubagent(bodyOf(request)));

async function setUp(subagents: Partial<SubagentSettings> = {}) {
  const memory = createInMemoryMemory();
  await memory.port.add({ userId: 'test:person-1', content: 'Is vegetarian', category: 'preference' });
  await memory.port.add({ userId: 'test:person-1', content: 'Lives in Lisbon', category: 'fact' });
  const channel = createRecordingChannel();
  const logger = createRecordingLogger();
  const model = createOpenAICompatible({ baseURL: server.baseUrl, name: 'scripted' })('scripted-model');
  const core = createNexusCore({
    sessionStore: createSqliteSessionStore({ path: ':memory:' }),
    agent: createAgent({ model, maxSteps: 4 }),
    memory: { port: memory.port, tools: false },
    subagents,
    logger,
  });
  core.registerChannel(channel.adapter);
  cores.push(core);
  return { core, channel, logger, memory };
}

const TASKS = ['Find a vegetarian restaurant', 'Find a museum in Lisbon', 'Find a concert this weekend'];

/** The main run delegates three tasks at once, then merges the tool results into its reply. */
function delegateThree(subagent: (request: ChatCompletionRequest) => ScriptedResponse) {
  server.setResponder((request) => {
    if (isSubagent(request)) return subagent(request);
    const results = toolMessages(request);
    if (results.length === 0)
      return { toolCalls: TASKS.map((task) => ({ name: 'delegate', arguments: { task } })) };
    return {
      text: `Plan: ${results.map((message) => JSON.parse(String(message.content)).result).join(' | ')}`,
    };
  });
}

async function until(condition: () => boolean, description: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${description}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('delegate', () => {
  it('runs three subagents at once, each with its own prompt and smaller memory block, and merges their results', async () => {
    const { core, channel, logger, memory } = await setUp();
    delegateThree((request) => ({ text: `done: ${taskOf(request)}` }));

    await core.intake(testIntent({ id: 'm1', text: 'plan my saturday' }));
    await core.whenIdle();

    expect(channel.replyTextOf('m1')).toBe(
      'Plan: done: Find a vegetarian restaurant | done: Find a museum in Lisbon | done: Find a concert this weekend',
    );
    const subagents = subagentRequests().map(bodyOf);
    expect(subagents.map(taskOf).sort()).toEqual([...TASKS].sort());
    const restaurant = subagents.find((request) => taskOf(request) === TASKS[0])!;
    expect(systemOf(restaurant)).toContain('## Known Facts (from memory)\n- Is vegetarian');
    expect(systemOf(restaurant)).not.toContain('Lisbon');
    expect(toolNames(restaurant)).toEqual(['delegate']);
    const contextCalls = memory.calls.filter((call) => call.method === 'context').map((call) => call.options);
    expect(
      contextCalls.filter((options) => options.tokenBudget === 1000 && options.limit === 10),
    ).toHaveLength(3);
    const finished = logger.lines.filter((line) => line.message === 'subagent finished');
    expect(finished).toHaveLength(3);
    expect(finished[0]?.object).toMatchObject({ outcome: 'ok', usage: { inputTokens: expect.any(Number) } });
  });

  it('aborts the running subagents when the parent is aborted', async () => {
    const { core, channel, logger } = await setUp();
    delegateThree(() => ({ hang: true }));

    await core.intake(testIntent({ id: 'm1', text: 'plan my saturday' }));
    await until(() => subagentRequests().length === 3, 'three subagent requests');
    await core.shutdown({ deadlineMs: 200 });

    await until(
      () => subagentRequests().every((request) => request.finishedAt !== undefined),
      'closed requests',
    );
    const events = channel.deliveries[0]?.events ?? [];
    expect(events.at(-1)).toMatchObject({ type: 'error', code: 'shutting_down' });
    const finished = logger.lines.filter((line) => line.message === 'subagent finished');
    expect(finished.map((line) => (line.object as { outcome: string }).outcome)).toEqual([
      'aborted',
      'aborted',
      'aborted',
    ]);
  });

  it('runs at most maxParallel subagents at a time', async () => {
    const { core, channel } = await setUp({ maxParallel: 2 });
    delegateThree((request) => ({ text: `done: ${taskOf(request)}`, delayMs: 100 }));

    await core.intake(testIntent({ id: 'm1', text: 'plan my saturday' }));
    await core.whenIdle();

    expect(channel.replyTextOf('m1')).toContain('done: Find a concert this weekend');
    const spans = subagentRequests().map((request) => [request.receivedAt, request.finishedAt ?? 0] as const);
    const overlap = spans.map(([start]) => spans.filter(([from, to]) => from <= start && start < to).length);
    expect(Math.max(...overlap)).toBe(2);
  });

  it('stops delegating at the depth limit', async () => {
    const { core, channel } = await setUp({ maxDepth: 2 });
    server.setResponder((request) => {
      const done = toolMessages(request).map((message) => JSON.parse(String(message.content)).result);
      if (done.length > 0) return { text: `${done[0]} (checked)` };
      if (!isSubagent(request))
        return { toolCalls: [{ name: 'delegate', arguments: { task: 'level one' } }] };
      if (taskOf(request) === 'level one')
        return { toolCalls: [{ name: 'delegate', arguments: { task: 'level two' } }] };
      return { text: 'leaf answer' };
    });

    await core.intake(testIntent({ id: 'm1', text: 'go deep' }));
    await core.whenIdle();

    expect(channel.replyTextOf('m1')).toBe('leaf answer (checked) (checked)');
    const byTask = new Map(subagentRequests().map((request) => [taskOf(bodyOf(request)), bodyOf(request)]));
    expect(toolNames(byTask.get('level one')!)).toEqual(['delegate']);
    expect(toolNames(byTask.get('level two')!)).toEqual([]);
  });

  it('reports a subagent that runs out of time as a tool result the parent can answer with', async () => {
    const { core, channel } = await setUp({ timeoutMs: 100 });
    server.setResponder((request) => {
      if (isSubagent(request)) return { hang: true };
      const [result] = toolMessages(request);
      if (!result) return { toolCalls: [{ name: 'delegate', arguments: { task: 'slow task' } }] };
      return { text: `Sorry: ${JSON.parse(String(result.content)).error}` };
    });

    await core.intake(testIntent({ id: 'm1', text: 'do the slow thing' }));
    await core.whenIdle();

    expect(channel.replyTextOf('m1')).toBe('Sorry: The helper did not finish within 100 ms.');
  });
});
