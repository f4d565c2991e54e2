import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import {
  type ChatCompletionRequest,
  type ScriptedModelServer,
  startScriptedModelServer,
} from '@nexus/testkit/llm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgent } from '../../agent/agent.ts';
import { createNexusCore, type NexusCore } from '../../nexus-core.ts';
import { createSqliteSessionStore } from '../../session-store/sqlite-session-store.ts';
import { createRecordingChannel, testIntent } from '../../testing/recording-channel.ts';
import { createInMemoryMemory } from '../testing/in-memory-memory.ts';

const HOUR_MS = 3_600_000;
let server: ScriptedModelServer;
let core: NexusCore | undefined;

beforeEach(async () => {
  server = await startScriptedModelServer();
});
afterEach(async () => {
  await core?.shutdown({ deadlineMs: 1000 });
  core = undefined;
  await server.close();
});

async function setUp(welcomeBackAfterMs?: number) {
  let clock = Date.parse('2026-11-01T09:00:00Z');
  const memory = createInMemoryMemory({ now: () => clock });
  await memory.port.add({
    userId: 'test:person-1',
    content: 'Is training for the Lisbon marathon',
    category: 'fact',
    source: 'user_explicit',
  });
  const channel = createRecordingChannel();
  const model = createOpenAICompatible({ baseURL: server.baseUrl, name: 'scripted' })('scripted-model');
  core = createNexusCore({
    sessionStore: createSqliteSessionStore({ path: ':memory:' }),
    agent: createAgent({ model, systemPrompt: 'You are a test.' }),
    now: () => clock,
    memory: {
      port: memory.port,
      tools: false,
      ...(welcomeBackAfterMs === undefined ? {} : { welcomeBackAfterMs }),
    },
  });
  core.registerChannel(channel.adapter);
  const say = async (id: string, text: string) => {
    await core?.intake(testIntent({ id, text }));
    await core?.whenIdle();
    const body = server.chatRequests().at(-1)?.body as ChatCompletionRequest;
    return String(body.messages.find((message) => message.role === 'system')?.content ?? '');
  };
  return { say, advance: (ms: number) => (clock += ms) };
}

describe('welcome back', () => {
  it('greets a person returning after the gap as known, with their standing facts, once', async () => {
    const { say, advance } = await setUp();
    const first = await say('m1', 'hi, I am new here');
    expect(first).not.toContain('## Returning person');
    advance(2 * HOUR_MS);
    expect(await say('m2', 'quick question')).not.toContain('## Returning person');

    advance(80 * HOUR_MS);
    const back = await say('m3', 'hello again');
    expect(back).toContain('- Is training for the Lisbon marathon (fact,');
    expect(back).toContain('## Returning person\nThis person is writing again after 3 days away.');
    expect(back.indexOf('Lisbon marathon')).toBeLessThan(back.indexOf('## Returning person'));
    // The next message is no longer after a gap.
    expect(await say('m4', 'and another thing')).not.toContain('## Returning person');
  });

  it('is off at 0, and a shorter gap than the setting is not a return', async () => {
    const off = await setUp(0);
    await off.say('m1', 'hi');
    off.advance(500 * HOUR_MS);
    expect(await off.say('m2', 'back')).not.toContain('## Returning person');
    await core?.shutdown({ deadlineMs: 1000 });

    const short = await setUp(100 * HOUR_MS);
    await short.say('m1', 'hi');
    short.advance(99 * HOUR_MS);
    expect(await short.say('m2', 'back')).not.toContain('## Returning person');
  });
});
