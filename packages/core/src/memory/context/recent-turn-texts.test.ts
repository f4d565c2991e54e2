import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { type ScriptedModelServer, startScriptedModelServer } from '@nexus/testkit/llm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgent } from '../../agent/agent.ts';
import { createNexusCore, type NexusCore } from '../../nexus-core.ts';
import type { StoredTurn } from '../../session-store/session-store.ts';
import { createSqliteSessionStore } from '../../session-store/sqlite-session-store.ts';
import {
  createRecordingChannel,
  createRecordingLogger,
  testIntent,
} from '../../testing/recording-channel.ts';
import { createInMemoryMemory } from '../testing/in-memory-memory.ts';
import { recentTurnTexts } from './recent-turn-texts.ts';

let server: ScriptedModelServer;
let core: NexusCore | undefined;
beforeEach(async () => {
  server = await startScriptedModelServer();
});
afterEach(async () => {
  await core?.shutdown({ deadlineMs: 1000 });
  await server.close();
});

const turn = (userText: string, replyText: string, kind?: 'turn' | 'note'): StoredTurn => ({
  conversationKey: 'c',
  channel: 'test',
  userId: 'u',
  intentId: userText,
  userText,
  replyText,
  outcome: 'completed' as StoredTurn['outcome'],
  createdAt: 1,
  ...(kind ? { kind } : {}),
});

describe('recent turns in the memory query', () => {
  it('takes the last two exchanges, oldest first, without notes or empty texts, each cut short', () => {
    const texts = recentTurnTexts([
      turn('first', 'one'),
      turn('My sister Maya is visiting', 'How nice!'),
      turn('edited', 'note text', 'note'),
      turn('x'.repeat(5_000), ''),
    ]);
    expect(texts).toEqual(['My sister Maya is visiting', 'How nice!', 'x'.repeat(1_000)]);
  });

  it('finds the last two exchanges of a long history, behind the notes that end it', () => {
    const history = Array.from({ length: 200 }, (_, index) => turn(`asked ${index}`, `answered ${index}`));
    const texts = recentTurnTexts([
      ...history,
      turn('edited', 'note', 'note'),
      turn('again', 'note', 'note'),
    ]);
    expect(texts).toEqual(['asked 198', 'answered 198', 'asked 199', 'answered 199']);
    expect(recentTurnTexts([])).toEqual([]);
    expect(recentTurnTexts([turn('only', '  ')])).toEqual(['only']);
  });

  it("sends a turn's memory query the conversation's previous exchange with the message", async () => {
    const memory = createInMemoryMemory();
    const model = createOpenAICompatible({ baseURL: server.baseUrl, name: 'scripted' })('scripted-model');
    core = createNexusCore({
      sessionStore: createSqliteSessionStore({ path: ':memory:' }),
      agent: createAgent({ model, systemPrompt: 'You are a test.' }),
      logger: createRecordingLogger(),
      memory: { port: memory.port },
    });
    core.registerChannel(createRecordingChannel().adapter);

    await core.intake(
      testIntent({ id: 'm1', text: 'My sister Maya is visiting this weekend', conversationId: 'c1' }),
    );
    await core.whenIdle();
    await core.intake(testIntent({ id: 'm2', text: 'and what does she do again?', conversationId: 'c1' }));
    await core.whenIdle();

    const contexts = memory.calls.filter((call) => call.method === 'context').map((call) => call.options);
    expect(contexts[0]).not.toHaveProperty('recentTurns');
    expect(contexts[1]?.query).toBe('and what does she do again?');
    const recentTurns = (contexts[1] as { recentTurns?: string[] }).recentTurns;
    expect(recentTurns?.[0]).toBe('My sister Maya is visiting this weekend');
    expect(recentTurns).toHaveLength(2);
  });
});
