import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { IntentInput } from '@nexus/protocol';
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
import { createRecordingChannel } from '../testing/recording-channel.ts';

// "Welcome back" is about the person, not one conversation: the gap is since their last message
// on any channel, in any conversation. The recording channel stands for each channel by name.
const HOUR_MS = 3_600_000;
const ADA = 'person:ada';
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

async function setUp(options: { knownFacts?: boolean } = {}) {
  let clock = Date.parse('2026-11-01T09:00:00Z');
  const memory = createInMemoryMemory({ now: () => clock });
  if (options.knownFacts !== false)
    await memory.port.add({
      userId: ADA,
      content: 'Is training for the Lisbon marathon',
      source: 'user_explicit',
    });
  const model = createOpenAICompatible({ baseURL: server.baseUrl, name: 'scripted' })('scripted-model');
  core = createNexusCore({
    sessionStore: createSqliteSessionStore({ path: ':memory:' }),
    agent: createAgent({ model, systemPrompt: 'You are a test.' }),
    now: () => clock,
    memory: { port: memory.port, tools: false },
  });
  for (const name of ['telegram', 'web', 'whatsapp'])
    core.registerChannel(createRecordingChannel({ name }).adapter);
  let counter = 0;
  const intentOn = (channel: string, conversation: string, text: string): IntentInput => ({
    id: `m${++counter}`,
    channel,
    conversation: { id: conversation, kind: 'direct' },
    sender: { platformId: `${channel}-ada`, displayName: 'Ada' },
    userId: ADA,
    text,
    mentionsAssistant: true,
    receivedAt: new Date(clock).toISOString(),
  });
  /** The system prompt of the reply to one message. */
  const say = async (channel: string, conversation: string, text: string) => {
    await core?.intake(intentOn(channel, conversation, text));
    await core?.whenIdle();
    const body = server.chatRequests().at(-1)?.body as ChatCompletionRequest;
    return String(body.messages.find((message) => message.role === 'system')?.content ?? '');
  };
  return { say, intentOn, advance: (ms: number) => (clock += ms) };
}

const WELCOME = '## Returning person';

describe('welcome back, for the person across channels', () => {
  it('is not given on the web to a person active on Telegram meanwhile', async () => {
    const { say, advance } = await setUp();
    await say('web', 'web-1', 'hello from the browser');
    for (let day = 0; day < 5; day++) {
      advance(24 * HOUR_MS);
      expect(await say('telegram', 'tg-1', `day ${day} on the phone`)).not.toContain(WELCOME);
    }
    // Five days since the web conversation's last turn, but Ada never went away.
    expect(await say('web', 'web-1', 'back at the desk')).not.toContain(WELCOME);
  });

  it('is given once per return: the first message after the gap, on whichever channel, and not the next', async () => {
    const { say, advance } = await setUp();
    await say('web', 'web-1', 'hi');
    advance(80 * HOUR_MS);
    const back = await say('telegram', 'tg-1', 'hello again');
    expect(back).toContain(`${WELCOME}\nThis person is writing again after 3 days away.`);
    expect(back).toContain('Is training for the Lisbon marathon');
    expect(await say('web', 'web-1', 'and here too')).not.toContain(WELCOME);
    expect(await say('telegram', 'tg-1', 'one more')).not.toContain(WELCOME);
  });

  it('counts the first message on a newly linked channel, a conversation with no history of its own', async () => {
    const { say, advance } = await setUp();
    await say('web', 'web-1', 'hi');
    advance(4 * 24 * HOUR_MS);
    // WhatsApp was linked to Ada meanwhile: its first message is her return.
    expect(await say('whatsapp', 'wa-1', 'first message here')).toContain(
      `${WELCOME}\nThis person is writing again after 4 days away.`,
    );
  });

  it('is not given when Nexus knows nothing about the person, nor to someone never seen', async () => {
    const unknown = await setUp({ knownFacts: false });
    expect(await unknown.say('web', 'web-1', 'first time')).not.toContain(WELCOME);
    unknown.advance(10 * 24 * HOUR_MS);
    expect(await unknown.say('web', 'web-1', 'back after ten days')).not.toContain(WELCOME);
  });

  it('greets one of two messages sent at once on two channels after the gap, not both', async () => {
    const { say, intentOn, advance } = await setUp();
    await say('web', 'web-1', 'hi');
    advance(80 * HOUR_MS);
    await Promise.all([
      core?.intake(intentOn('web', 'web-1', 'back on the web')),
      core?.intake(intentOn('telegram', 'tg-1', 'back on the phone')),
    ]);
    await core?.whenIdle();
    const prompts = server
      .chatRequests()
      .slice(-2)
      .map((request) => JSON.stringify((request.body as ChatCompletionRequest).messages[0]?.content));
    expect(prompts.filter((prompt) => prompt.includes(WELCOME))).toHaveLength(1);
  });
});
