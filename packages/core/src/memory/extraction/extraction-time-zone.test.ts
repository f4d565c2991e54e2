import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { silentLogger } from '@nexus/protocol';
import {
  type ChatCompletionRequest,
  type ScriptedModelServer,
  startScriptedModelServer,
} from '@nexus/testkit/llm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createInMemoryMemory } from '../testing/in-memory-memory.ts';
import { extractMemories } from './extract-memories.ts';

let server: ScriptedModelServer;
beforeEach(async () => {
  server = await startScriptedModelServer();
  server.setResponder(() => ({ text: '{"facts":[]}' }));
});
afterEach(async () => {
  await server.close();
});

async function todayInPrompt(timeZone: string | undefined): Promise<string> {
  await extractMemories({
    payload: {
      userId: 'test:ana',
      sessionId: 'test:c1',
      channel: 'test',
      conversationId: 'c1',
      conversationKind: 'direct',
      intentId: `m-${timeZone}`,
      userText: 'I have a dentist appointment tomorrow',
      replyText: 'Noted!',
      // Sunday 22:30 in UTC is already Monday in Auckland and still Sunday afternoon in New York.
      occurredAt: '2026-11-22T22:30:00.000Z',
    },
    memory: createInMemoryMemory().port,
    model: createOpenAICompatible({ baseURL: server.baseUrl, name: 'scripted' })('cheap-model'),
    now: () => Date.parse('2026-11-22T22:30:05.000Z'),
    ...(timeZone ? { timeZone } : {}),
    logger: silentLogger,
  });
  const request = server.chatRequests().at(-1)?.body as ChatCompletionRequest;
  const system = request.messages.find((message) => message.role === 'system');
  return /Today's date is ([^.]+)\./.exec(String(system?.content))?.[1] ?? '';
}

describe('the speaker’s time zone in the extraction prompt', () => {
  it('makes "today" the date where the person is', async () => {
    expect(await todayInPrompt(undefined)).toBe('2026-11-22 (Sunday)');
    expect(await todayInPrompt('UTC')).toBe('2026-11-22 (Sunday)');
    expect(await todayInPrompt('Pacific/Auckland')).toBe('2026-11-23 (Monday)');
    expect(await todayInPrompt('America/New_York')).toBe('2026-11-22 (Sunday)');
  });
});
