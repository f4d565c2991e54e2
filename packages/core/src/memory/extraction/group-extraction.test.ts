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
import type { MemoryExtractionPayload } from './memory-extraction-job.ts';

let server: ScriptedModelServer;
beforeEach(async () => {
  server = await startScriptedModelServer();
});
afterEach(async () => {
  await server.close();
});

const FACTS = {
  facts: [
    { content: 'Meets every Friday at 19:00', category: 'pattern', source: 'user_explicit' },
    { content: 'Lives in Lisbon', category: 'fact', source: 'user_explicit' },
  ],
};
const DECISIONS = { decisions: [{ fact: 1, action: 'UPDATE', memory: 1, content: 'Meets on Fridays' }] };

function groupPayload(overrides: Partial<MemoryExtractionPayload> = {}): MemoryExtractionPayload {
  return {
    userId: 'test:ana',
    sessionId: 'test:team',
    channel: 'test',
    conversationId: 'team',
    conversationKind: 'group',
    intentId: 'g1',
    userText: 'Our book club meets every Friday at 19:00, and I live in Lisbon',
    replyText: 'Noted!',
    occurredAt: '2026-11-22T10:00:00.000Z',
    ...overrides,
  };
}

const systemOf = (request: ChatCompletionRequest) => String(request.messages[0]?.content ?? '');
const requests = () => server.chatRequests().map((recorded) => recorded.body as ChatCompletionRequest);

/** A careless model: it returns the same facts and an update whatever it is asked. */
function careless() {
  server.setResponder((request) => ({
    text: JSON.stringify(systemOf(request).includes('You extract lasting facts') ? FACTS : DECISIONS),
  }));
}

const run = (memory: ReturnType<typeof createInMemoryMemory>, payload: MemoryExtractionPayload) =>
  extractMemories({
    payload,
    memory: memory.port,
    model: createOpenAICompatible({ baseURL: server.baseUrl, name: 'scripted' })('cheap-model'),
    now: () => Date.parse('2026-11-22T10:00:05.000Z'),
    logger: silentLogger,
  });

describe('extraction of group turns', () => {
  it('writes only the group’s memory, asks for group facts, and never touches the speaker’s memory', async () => {
    const memory = createInMemoryMemory();
    await memory.port.add({ userId: 'test:ana', content: 'Is vegetarian', category: 'preference' });
    careless();

    const first = await run(memory, groupPayload());
    await memory.port.add({ userId: 'group:test:team', content: 'Meets weekly', category: 'pattern' });
    const thread = await run(memory, groupPayload({ conversationKind: 'thread', intentId: 'g2' }));

    expect(first).toMatchObject({ subject: 'group', facts: 2, added: 2 });
    expect(thread).toMatchObject({ subject: 'group', updated: 1, decisionCall: true });
    expect(memory.memoriesOf('test:ana').map((item) => item.content)).toEqual(['Is vegetarian']);
    expect(memory.memoriesOf('group:test:team')).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          content: 'Lives in Lisbon',
          metadata: { via: 'extraction', intentId: 'g1', speaker: 'test:ana' },
        }),
      ]),
    );
    const [extraction, secondExtraction, decision] = requests();
    for (const request of [extraction!, secondExtraction!]) {
      expect(systemOf(request)).toContain('stored in the group');
      expect(systemOf(request)).toContain("never stored in anyone's personal memory");
      expect(systemOf(request)).toContain("Never facts about one member's private life");
      expect(String(request.messages.at(-1)?.content)).toContain('A member of the group wrote:');
    }
    expect(systemOf(decision!)).toContain("You keep a group chat's long-term memory");
    // The decision saw only the group's memories, never the speaker's.
    expect(String(decision!.messages.at(-1)?.content)).not.toContain('vegetarian');
  });

  it('writes the speaker’s memory only for a job the core marked as allowed, and skips reserved ids', async () => {
    const memory = createInMemoryMemory();
    careless();

    const allowed = await run(memory, groupPayload({ personalInGroup: true }));
    const reserved = await run(
      memory,
      groupPayload({ userId: 'group:test:team', conversationKind: 'direct', intentId: 'd1' }),
    );

    expect(allowed).toMatchObject({ subject: 'person', added: 2 });
    expect(memory.memoriesOf('test:ana')).toHaveLength(2);
    expect(memory.memoriesOf('group:test:team')).toEqual([]);
    expect(reserved).toMatchObject({ subject: 'none', facts: 0 });
    expect(requests()).toHaveLength(1);
  });
});
