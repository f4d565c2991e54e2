import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { PermanentJobError, silentLogger } from '@nexus/protocol';
import {
  type ChatCompletionRequest,
  type ScriptedModelServer,
  type ScriptedResponse,
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

const model = () => createOpenAICompatible({ baseURL: server.baseUrl, name: 'scripted' })('cheap-model');

function payload(overrides: Partial<MemoryExtractionPayload> = {}): MemoryExtractionPayload {
  return {
    userId: 'test:ana',
    sessionId: 'test:c1',
    channel: 'test',
    conversationId: 'c1',
    conversationKind: 'direct',
    intentId: 'm1',
    userText: "I'm vegetarian and I live in Lisbon",
    replyText: 'Noted!',
    occurredAt: '2026-11-22T10:00:00.000Z',
    ...overrides,
  };
}

function systemOf(request: ChatCompletionRequest): string {
  const system = request.messages.find((message) => message.role === 'system');
  return typeof system?.content === 'string' ? system.content : '';
}

function lastUserOf(request: ChatCompletionRequest): string {
  const user = request.messages.findLast((message) => message.role === 'user');
  return typeof user?.content === 'string' ? user.content : '';
}

/** Answers fact-extraction and decision calls from scripts, by the instructions they carry. */
function scriptModel(script: { facts: string[]; decisions?: string[] }) {
  const facts = [...script.facts];
  const decisions = [...(script.decisions ?? [])];
  server.setResponder((request): ScriptedResponse => {
    const system = systemOf(request);
    if (system.includes('You extract lasting facts')) return { text: facts.shift() ?? '{"facts":[]}' };
    if (system.includes("You keep a person's long-term memory")) return { text: decisions.shift() ?? '' };
    return { status: 500 };
  });
}

const run = (
  memory: ReturnType<typeof createInMemoryMemory>,
  overrides: Partial<MemoryExtractionPayload> = {},
) =>
  extractMemories({
    payload: payload(overrides),
    memory: memory.port,
    model: model(),
    now: () => Date.parse('2026-11-22T10:00:05.000Z'),
    logger: silentLogger,
  });

describe('extractMemories', () => {
  it('stores the facts with category and source, tolerating a code fence, without a decision call when nothing is similar', async () => {
    const memory = createInMemoryMemory();
    scriptModel({
      facts: [
        '```json\n{"facts":[{"content":"Is vegetarian","category":"preference","source":"user_explicit"},{"content":"Lives in Lisbon","category":"fact","source":"user_explicit"}]}\n```',
      ],
    });

    const report = await run(memory);

    expect(report).toMatchObject({ facts: 2, added: 2, decisionCall: false });
    expect(memory.memoriesOf('test:ana')).toMatchObject([
      { content: 'Is vegetarian', category: 'preference', source: 'user_explicit', scope: 'user' },
      { content: 'Lives in Lisbon', category: 'fact', source: 'user_explicit', scope: 'user' },
    ]);
    const [request] = server.chatRequests().map((recorded) => recorded.body as ChatCompletionRequest);
    expect(request?.model).toBe('cheap-model');
    expect(systemOf(request!)).toContain("Today's date is 2026-11-22 (Sunday)");
    expect(systemOf(request!)).toContain('in the same language as the person');
    expect(systemOf(request!)).toContain('At most 5 facts');
    expect(lastUserOf(request!)).toContain("I'm vegetarian and I live in Lisbon");
  });

  it('updates a contradicted memory instead of keeping both, with memories shown as small numbers', async () => {
    const memory = createInMemoryMemory();
    await memory.port.add({ userId: 'test:ana', content: 'Lives in Lisbon', category: 'fact' });
    await memory.port.add({ userId: 'test:ana', content: 'Is vegetarian', category: 'preference' });
    await memory.port.add({ userId: 'test:ben', content: 'Lives in Porto', category: 'fact' });
    scriptModel({
      facts: ['{"facts":[{"content":"Lives in Berlin","category":"fact","source":"user_explicit"}]}'],
      decisions: ['{"decisions":[{"fact":1,"action":"UPDATE","memory":1,"content":"Lives in Berlin"}]}'],
    });

    const report = await run(memory, { userText: 'I moved to Berlin', intentId: 'm2' });

    expect(report).toMatchObject({ facts: 1, updated: 1, decisionCall: true });
    expect(
      memory
        .memoriesOf('test:ana')
        .map((item) => item.content)
        .sort(),
    ).toEqual(['Is vegetarian', 'Lives in Berlin']);
    expect(memory.memoriesOf('test:ben').map((item) => item.content)).toEqual(['Lives in Porto']);
    const decision = server.chatRequests()[1]?.body as ChatCompletionRequest;
    const prompt = lastUserOf(decision);
    expect(prompt).toContain('1. Lives in Berlin (fact)');
    expect(prompt).toContain('[1] Lives in Lisbon (fact, today)');
    expect(prompt).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/u);
    expect(prompt).not.toContain('Porto');
  });

  it('deletes on DELETE and leaves memories alone on NONE', async () => {
    const memory = createInMemoryMemory();
    await memory.port.add({ userId: 'test:ana', content: 'Works at Acme', category: 'fact' });
    await memory.port.add({ userId: 'test:ana', content: 'Likes jazz music', category: 'preference' });
    scriptModel({
      facts: [
        '{"facts":[{"content":"Quit the job at Acme","category":"event","source":"user_explicit"},{"content":"Likes jazz music","category":"preference","source":"inferred"}]}',
      ],
      decisions: ['{"decisions":[{"fact":1,"action":"DELETE","memory":1},{"fact":2,"action":"NONE"}]}'],
    });

    const report = await run(memory);

    expect(report).toMatchObject({ deleted: 1, unchanged: 1, added: 0 });
    expect(memory.memoriesOf('test:ana').map((item) => item.content)).toEqual(['Likes jazz music']);
  });

  it('retries an invalid answer once, telling the model what was wrong', async () => {
    const memory = createInMemoryMemory();
    await memory.port.add({ userId: 'test:ana', content: 'Lives in Lisbon', category: 'fact' });
    scriptModel({
      facts: ['{"facts":[{"content":"Lives in Berlin","category":"fact","source":"user_explicit"}]}'],
      decisions: [
        '{"decisions":[{"fact":1,"action":"UPDATE","memory":7}]}',
        'Sure! {"decisions":[{"fact":1,"action":"UPDATE","memory":1}]}',
      ],
    });

    const report = await run(memory);

    expect(report.updated).toBe(1);
    expect(memory.memoriesOf('test:ana').map((item) => item.content)).toEqual(['Lives in Berlin']);
    const retry = server.chatRequests()[2]?.body as ChatCompletionRequest;
    expect(lastUserOf(retry)).toContain('there is no stored memory [7]');
  });

  it('throws PermanentJobError with the reason after a second invalid answer, writing nothing', async () => {
    const memory = createInMemoryMemory();
    scriptModel({ facts: ['I think the person is vegetarian.', '{"facts":[{"content":"Is vegetarian"}]}'] });

    const failure = await run(memory).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(PermanentJobError);
    expect((failure as Error).message).toMatch(
      /fact extraction: the model's answer was invalid twice: facts\.0\.category/u,
    );
    expect(memory.memoriesOf('test:ana')).toEqual([]);
    expect(server.chatRequests()).toHaveLength(2);
  });

  it('does not duplicate memories when the same turn is extracted again', async () => {
    const memory = createInMemoryMemory();
    const facts = '{"facts":[{"content":"Is vegetarian","category":"preference","source":"user_explicit"}]}';
    scriptModel({ facts: [facts, facts], decisions: ['{"decisions":[{"fact":1,"action":"ADD"}]}'] });

    await run(memory);
    const second = await run(memory);

    expect(second).toMatchObject({ added: 0, unchanged: 1 });
    expect(memory.memoriesOf('test:ana').map((item) => item.content)).toEqual(['Is vegetarian']);
  });

  it('keeps the best 5 of a longer answer instead of parking the job: stated first, then by category', async () => {
    const memory = createInMemoryMemory();
    const fact = (content: string, category: string, source: string) => ({ content, category, source });
    scriptModel({
      facts: [
        JSON.stringify({
          facts: [
            fact('Often asks about trains', 'pattern', 'inferred'),
            fact('Went to Porto last week', 'event', 'user_explicit'),
            fact('Is vegetarian', 'preference', 'user_explicit'),
            fact('Seems to like jazz', 'preference', 'inferred'),
            fact('Lives in Lisbon', 'fact', 'user_explicit'),
            fact('Works as a nurse', 'fact', 'user_explicit'),
            fact('Has a dog named Rex', 'fact', 'user_explicit'),
          ],
        }),
      ],
    });
    expect(await run(memory)).toMatchObject({ facts: 5, added: 5 });
    expect(memory.memoriesOf('test:ana').map((memory) => memory.content)).toEqual([
      'Went to Porto last week',
      'Is vegetarian',
      'Lives in Lisbon',
      'Works as a nurse',
      'Has a dog named Rex',
    ]);
    expect(server.chatRequests()).toHaveLength(1);
  });

  it('stores nothing and makes one call when the turn holds no lasting fact', async () => {
    const memory = createInMemoryMemory();
    scriptModel({ facts: ['{"facts":[]}'] });
    expect(await run(memory, { userText: 'hi!' })).toMatchObject({ facts: 0, added: 0 });
    expect(server.chatRequests()).toHaveLength(1);
  });
});
