import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { IntentInput } from '@nexus/protocol';
import { createSqliteJobQueue } from '@nexus/queue-sqlite';
import {
  type ChatCompletionRequest,
  type ScriptedModelServer,
  startScriptedModelServer,
} from '@nexus/testkit/llm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgent } from '../../agent/agent.ts';
import { createNexusCore, type NexusCore, type NexusCoreOptions } from '../../nexus-core.ts';
import { createSqliteSessionStore } from '../../session-store/sqlite-session-store.ts';
import { DEFAULT_SUBAGENT_SYSTEM_PROMPT } from '../../subagents/subagent-settings.ts';
import { createRecordingChannel, testIntent } from '../../testing/recording-channel.ts';
import { MEMORY_EXTRACT_JOB, type MemoryExtractionPayload } from '../extraction/memory-extraction-job.ts';
import { GROUP_MEMORY_NOTE } from '../memory-subject.ts';
import { createInMemoryMemory } from '../testing/in-memory-memory.ts';

let server: ScriptedModelServer;
const cleanups: Array<() => Promise<void>> = [];
beforeEach(async () => {
  server = await startScriptedModelServer();
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await server.close();
});

const PRIVATE = /vegetarian|Lisbon/u;
const bodies = () => server.chatRequests().map((request) => request.body as ChatCompletionRequest);
const systemOf = (request: ChatCompletionRequest) => String(request.messages[0]?.content ?? '');
const toolNames = (request: ChatCompletionRequest) =>
  ((request.tools ?? []) as Array<{ function: { name: string } }>).map((tool) => tool.function.name);

async function setUp(options: Partial<NexusCoreOptions['memory']> = {}, subagents = false) {
  const memory = createInMemoryMemory();
  await memory.port.add({ userId: 'test:person-1', content: 'Is vegetarian', category: 'preference' });
  await memory.port.add({ userId: 'test:person-1', content: 'Lives in Lisbon', category: 'fact' });
  memory.calls.length = 0; // only what core asks from here on
  const queue = createSqliteJobQueue({ path: ':memory:' });
  const jobs: MemoryExtractionPayload[] = [];
  const processor = queue.process({
    name: MEMORY_EXTRACT_JOB,
    handler: async (job) => {
      jobs.push(job.payload as MemoryExtractionPayload);
    },
  });
  const channel = createRecordingChannel();
  const model = createOpenAICompatible({ baseURL: server.baseUrl, name: 'scripted' })('scripted-model');
  const core = createNexusCore({
    sessionStore: createSqliteSessionStore({ path: ':memory:' }),
    agent: createAgent({ model, maxSteps: 4 }),
    memory: { port: memory.port, jobQueue: queue, summaryIdleMs: 1, ...options },
    ...(subagents ? { subagents: {} } : {}),
  });
  core.registerChannel(channel.adapter);
  cleanups.push(async () => {
    await core.shutdown({ deadlineMs: 1000 });
    await processor.stop();
    await queue.close();
  });
  return { core, memory, jobs };
}

function inGroup(id: string, kind: 'group' | 'thread' = 'group', conversationId = 'team'): IntentInput {
  const intent = testIntent({ id, text: 'what do you remember about me and my food?', conversationId });
  return { ...intent, conversation: { id: conversationId, kind } };
}

async function turn(core: NexusCore, intent: IntentInput) {
  expect(await core.intake(intent)).toEqual({ status: 'accepted' });
  await core.whenIdle();
}

describe('memory in group conversations', () => {
  it('reads and writes only the group’s memory, in the main run and in every subagent', async () => {
    server.setResponder((request) => {
      if (systemOf(request).startsWith(DEFAULT_SUBAGENT_SYSTEM_PROMPT)) {
        const results = request.messages.filter((message) => message.role === 'tool');
        return results.length > 0
          ? { text: 'Nothing personal found.' }
          : { toolCalls: [{ name: 'recall', arguments: { query: 'eats lives' } }] };
      }
      if (request.messages.at(-1)?.role === 'tool') return { text: 'Done.' };
      return {
        toolCalls: [
          { name: 'delegate', arguments: { task: 'Find out what this person eats and where they live' } },
          { name: 'recall', arguments: { query: 'food' } },
          { name: 'remember', arguments: { content: 'Plans a dinner on Friday' } },
        ],
      };
    });
    const { core, memory, jobs } = await setUp({}, true);

    await turn(core, inGroup('g1'));
    await turn(core, inGroup('t1', 'thread', 'topic-7'));

    const userIds = new Set(memory.calls.map((call) => call.options.userId));
    // `*` is the global partition, facts for everyone: `recall` reads it in every conversation.
    expect(userIds).toEqual(new Set(['group:test:team', 'group:test:topic-7', '*']));
    const globalCalls = memory.calls.filter((call) => call.options.userId === '*');
    expect(new Set(globalCalls.map((call) => call.method))).toEqual(new Set(['search']));
    // No summary of a group is read (no listing at all): only the context, standing facts included.
    expect(memory.calls.filter((call) => call.method === 'list')).toEqual([]);
    expect(
      memory.calls
        .filter((call) => call.method === 'context' && call.options.standing)
        .map((call) => call.options.userId),
    ).toEqual(['group:test:team', 'group:test:topic-7']);
    for (const body of bodies()) expect(JSON.stringify(body)).not.toMatch(PRIVATE);
    const subagentRuns = bodies().filter((body) => systemOf(body).startsWith(DEFAULT_SUBAGENT_SYSTEM_PROMPT));
    expect(subagentRuns.length).toBeGreaterThan(0);
    for (const run of subagentRuns) expect(systemOf(run)).toContain(GROUP_MEMORY_NOTE);
    expect(memory.memoriesOf('group:test:team')).toMatchObject([
      { content: 'Plans a dinner on Friday', metadata: { via: 'remember', speaker: 'test:person-1' } },
    ]);
    expect(memory.memoriesOf('test:person-1').map((item) => item.content)).toEqual([
      'Is vegetarian',
      'Lives in Lisbon',
    ]);
    await expect.poll(() => jobs.length).toBe(2);
    for (const job of jobs) expect(job).not.toHaveProperty('personalInGroup');
  });

  it('uses the person’s memory in a group listed for them, and the group’s for anyone else there', async () => {
    server.setResponder(() => ({ text: 'Hi.' }));
    const { core, memory, jobs } = await setUp({
      groupPersonalMemory: [{ conversation: 'test:solo', userId: 'test:person-1' }],
    });

    await turn(core, inGroup('s1', 'group', 'solo'));
    await turn(core, {
      ...inGroup('s2', 'group', 'solo'),
      userId: 'test:guest',
      sender: { platformId: 'guest' },
    });

    expect(systemOf(bodies()[0]!)).toContain('- Is vegetarian');
    expect(systemOf(bodies()[1]!)).toContain(GROUP_MEMORY_NOTE);
    expect(JSON.stringify(bodies()[1])).not.toMatch(PRIVATE);
    expect(
      memory.calls.filter((call) => call.method === 'context').map((call) => call.options.userId),
    ).toEqual(['test:person-1', 'group:test:solo']);
    await expect.poll(() => jobs.length).toBe(2);
    expect(jobs.find((job) => job.intentId === 's1')).toMatchObject({ personalInGroup: true });
    expect(jobs.find((job) => job.intentId === 's2')).not.toHaveProperty('personalInGroup');
  });

  it('gives a speaker whose id is in the group namespace no memory at all', async () => {
    server.setResponder(() => ({ text: 'Hi.' }));
    const { core, memory, jobs } = await setUp();

    await turn(core, { ...testIntent({ id: 'd1', text: 'hello' }), userId: 'group:test:team' });

    expect(memory.calls).toEqual([]);
    expect(toolNames(bodies()[0]!)).toEqual([]);
    expect(systemOf(bodies()[0]!)).not.toContain('Known Facts');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(jobs).toEqual([]);
  });
});
