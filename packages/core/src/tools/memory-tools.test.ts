import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import {
  type ChatCompletionRequest,
  type ScriptedModelServer,
  startScriptedModelServer,
} from '@nexus/testkit/llm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgent } from '../agent/agent.ts';
import { createInMemoryMemory } from '../memory/testing/in-memory-memory.ts';
import { createNexusCore, type NexusCore } from '../nexus-core.ts';
import { createSqliteSessionStore } from '../session-store/sqlite-session-store.ts';
import { createRecordingChannel, testIntent } from '../testing/recording-channel.ts';

let server: ScriptedModelServer;
const cores: NexusCore[] = [];
beforeEach(async () => {
  server = await startScriptedModelServer();
});
afterEach(async () => {
  await Promise.all(cores.splice(0).map((core) => core.shutdown({ deadlineMs: 1000 })));
  await server.close();
});

function setUp(memory: ReturnType<typeof createInMemoryMemory>) {
  const channel = createRecordingChannel();
  const model = createOpenAICompatible({ baseURL: server.baseUrl, name: 'scripted' })('scripted-model');
  const core = createNexusCore({
    sessionStore: createSqliteSessionStore({ path: ':memory:' }),
    agent: createAgent({ model }),
    memory: { port: memory.port },
  });
  core.registerChannel(channel.adapter);
  cores.push(core);
  return { core, channel };
}

function toolResults(index: number): unknown[] {
  const body = server.chatRequests()[index]?.body as ChatCompletionRequest;
  return body.messages
    .filter((message) => message.role === 'tool')
    .map((message) => JSON.parse(String(message.content)));
}

describe('memory tools', () => {
  it('remember stores for the person speaking, whatever user id the model adds', async () => {
    const memory = createInMemoryMemory();
    const { core, channel } = setUp(memory);
    server.enqueue(
      {
        toolCalls: [
          {
            name: 'remember',
            arguments: {
              content: 'Prefers window seats',
              category: 'preference',
              userId: 'test:someone-else',
            },
          },
        ],
      },
      { text: 'I will remember that.' },
    );

    await core.intake(testIntent({ id: 'm1', text: 'remember that I prefer window seats' }));
    await core.whenIdle();

    expect(channel.replyTextOf('m1')).toBe('I will remember that.');
    expect(memory.memoriesOf('test:person-1')).toMatchObject([
      { content: 'Prefers window seats', category: 'preference', source: 'user_explicit' },
    ]);
    expect(memory.memoriesOf('test:someone-else')).toEqual([]);
    expect(toolResults(1)).toEqual([{ stored: true, memory: '#1', action: 'inserted' }]);
    const tools = (server.chatRequests()[0]!.body as ChatCompletionRequest).tools as Array<{
      function: { name: string; parameters: { properties: object } };
    }>;
    expect(tools.map((tool) => tool.function.name)).toEqual(['remember', 'recall', 'forget']);
    expect(tools.every((tool) => !('userId' in tool.function.parameters.properties))).toBe(true);
  });

  it('recall finds only this person’s memories, and forget takes the number recall showed', async () => {
    const memory = createInMemoryMemory();
    await memory.port.add({ userId: 'test:person-1', content: 'Lives in Lisbon', category: 'fact' });
    await memory.port.add({ userId: 'test:other', content: 'Lives in Lisbon too', category: 'fact' });
    const { core, channel } = setUp(memory);
    server.enqueue(
      { toolCalls: [{ name: 'recall', arguments: { query: 'Lisbon' } }] },
      {
        toolCalls: [
          { name: 'forget', arguments: { memory: '#1' } },
          { name: 'forget', arguments: { memory: '#9' } },
        ],
      },
      { text: 'Forgotten.' },
    );

    await core.intake(testIntent({ id: 'm1', text: 'forget where I live' }));
    await core.whenIdle();

    expect(channel.replyTextOf('m1')).toBe('Forgotten.');
    expect(toolResults(1)).toMatchObject([
      {
        memories: [
          { memory: '#1', content: 'Lives in Lisbon', category: 'fact', told: 'inferred', age: 'today' },
        ],
      },
    ]);
    expect(toolResults(2).slice(1)).toEqual([
      { forgotten: true },
      { forgotten: false, reason: 'No recalled memory #9; call recall first.' },
    ]);
    expect(memory.memoriesOf('test:person-1')).toEqual([]);
    expect(memory.memoriesOf('test:other').map((item) => item.content)).toEqual(['Lives in Lisbon too']);
  });

  it('recall returns global memories (kept under their own partition) beside the person’s, and forget leaves them', async () => {
    const memory = createInMemoryMemory();
    await memory.port.add({ scope: 'global', content: 'The office is in Lisbon', category: 'fact' });
    await memory.port.add({ userId: 'test:person-1', content: 'Moved to Lisbon in May', category: 'event' });
    await memory.port.add({ userId: 'test:other', content: 'Lisbon is home', category: 'fact' });
    const { core, channel } = setUp(memory);
    server.enqueue(
      { toolCalls: [{ name: 'recall', arguments: { query: 'Lisbon office' } }] },
      { toolCalls: [{ name: 'forget', arguments: { memory: '#1' } }] },
      { text: 'Done.' },
    );

    await core.intake(testIntent({ id: 'm1', text: 'what do you know about Lisbon?' }));
    await core.whenIdle();

    expect(channel.replyTextOf('m1')).toBe('Done.');
    const [recalled] = toolResults(1) as Array<{ memories: Array<{ content: string; scope?: string }> }>;
    expect(recalled?.memories).toEqual([
      expect.objectContaining({ memory: '#1', content: 'The office is in Lisbon', scope: 'global' }),
      expect.objectContaining({ memory: '#2', content: 'Moved to Lisbon in May' }),
    ]);
    expect(recalled?.memories[1]).not.toHaveProperty('scope');
    expect(toolResults(2).slice(1)).toEqual([
      {
        forgotten: false,
        reason: '#1 is a global memory (for everyone); only the operator can change it.',
      },
    ]);
    expect(memory.memoriesOf('*').map((item) => item.content)).toEqual(['The office is in Lisbon']);
  });
});
