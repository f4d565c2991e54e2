import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { JobQueue } from '@nexus/protocol';
import { createSqliteJobQueue } from '@nexus/queue-sqlite';
import {
  type ChatCompletionRequest,
  type ScriptedModelServer,
  type ScriptedResponse,
  startScriptedModelServer,
} from '@nexus/testkit/llm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgent } from '../../agent/agent.ts';
import { createNexusCore, type NexusCore } from '../../nexus-core.ts';
import { createSqliteSessionStore } from '../../session-store/sqlite-session-store.ts';
import { createRecordingChannel, testIntent } from '../../testing/recording-channel.ts';
import { createInMemoryMemory } from '../testing/in-memory-memory.ts';
import {
  enqueueMemoryExtraction,
  MEMORY_EXTRACT_JOB,
  type MemoryExtractionPayload,
} from './memory-extraction-job.ts';
import { startMemoryExtractionWorker } from './memory-extraction-worker.ts';

let server: ScriptedModelServer;
let queue: JobQueue;
const cores: NexusCore[] = [];

beforeEach(async () => {
  server = await startScriptedModelServer();
  queue = createSqliteJobQueue({ path: ':memory:', pollIntervalMs: 20 });
});
afterEach(async () => {
  await Promise.all(cores.splice(0).map((core) => core.shutdown({ deadlineMs: 1000 })));
  await queue.close({ timeoutMs: 1000 });
  await server.close();
});

const modelNamed = (name: string) =>
  createOpenAICompatible({ baseURL: server.baseUrl, name: 'scripted' })(name);

function systemOf(request: ChatCompletionRequest): string {
  const system = request.messages.find((message) => message.role === 'system');
  return typeof system?.content === 'string' ? system.content : '';
}

async function until(condition: () => boolean | Promise<boolean>, description: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${description}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function payload(index: number): MemoryExtractionPayload {
  return {
    userId: 'test:person-1',
    sessionId: 'test:c1',
    channel: 'test',
    conversationId: 'c1',
    conversationKind: 'direct',
    intentId: `m${index}`,
    userText: `fact number ${index}`,
    replyText: 'ok',
    occurredAt: new Date().toISOString(),
  };
}

describe('memory extraction worker', () => {
  it('extracts after a successful turn: job enqueued by the core, handled by the worker with the cheaper model', async () => {
    const memory = createInMemoryMemory();
    server.setResponder((request): ScriptedResponse => {
      if (systemOf(request).includes('You extract lasting facts'))
        return {
          text: '{"facts":[{"content":"Is vegetarian","category":"preference","source":"user_explicit"},{"content":"Lives in Lisbon","category":"fact","source":"user_explicit"}]}',
        };
      return { text: 'Noted, enjoy Lisbon!' };
    });
    const channel = createRecordingChannel();
    const core = createNexusCore({
      sessionStore: createSqliteSessionStore({ path: ':memory:' }),
      agent: createAgent({ model: modelNamed('chat-model') }),
      memory: { port: memory.port, jobQueue: queue, summaryIdleMs: 0 },
    });
    core.registerChannel(channel.adapter);
    cores.push(core);
    const extracted: number[] = [];
    startMemoryExtractionWorker({
      queue,
      memory: memory.port,
      model: modelNamed('cheap-model'),
      onExtracted: (report) => extracted.push(report.added),
    });

    await core.intake(testIntent({ id: 'm1', text: "I'm vegetarian and I live in Lisbon" }));
    await core.whenIdle();
    await until(() => extracted.length === 1, 'the extraction job');

    expect(channel.replyTextOf('m1')).toBe('Noted, enjoy Lisbon!');
    expect(memory.memoriesOf('test:person-1')).toMatchObject([
      {
        content: 'Is vegetarian',
        category: 'preference',
        source: 'user_explicit',
        sessionId: 'test:conversation-1',
      },
      { content: 'Lives in Lisbon', category: 'fact', source: 'user_explicit' },
    ]);
    const extraction = server.chatRequests()[1]?.body as ChatCompletionRequest;
    expect(extraction.model).toBe('cheap-model');
    expect(JSON.stringify(extraction.messages)).toContain('Noted, enjoy Lisbon!');
    expect(await queue.counts({ name: MEMORY_EXTRACT_JOB })).toMatchObject({ completed: 1, parked: 0 });
  });

  it('enqueues nothing after a failed turn', async () => {
    const memory = createInMemoryMemory();
    server.enqueue({ status: 401 });
    const channel = createRecordingChannel();
    const core = createNexusCore({
      sessionStore: createSqliteSessionStore({ path: ':memory:' }),
      agent: createAgent({ model: modelNamed('chat-model') }),
      memory: { port: memory.port, jobQueue: queue },
    });
    core.registerChannel(channel.adapter);
    cores.push(core);
    await core.intake(testIntent({ id: 'm1', text: 'I live in Lisbon' }));
    await core.whenIdle();
    expect(channel.deliveries[0]?.events.some((event) => event.type === 'error')).toBe(true);
    expect(await queue.counts()).toMatchObject({ waiting: 0, delayed: 0, active: 0, completed: 0 });
  });

  it('parks a job whose model keeps answering invalid JSON, with the reason', async () => {
    const memory = createInMemoryMemory();
    server.setResponder(() => ({ text: 'I am not able to produce JSON today.' }));
    startMemoryExtractionWorker({ queue, memory: memory.port, model: modelNamed('cheap-model') });

    await enqueueMemoryExtraction({ queue, payload: payload(1) });
    await until(async () => (await queue.parked()).length === 1, 'the parked job');

    const [parked] = await queue.parked();
    expect(parked).toMatchObject({ id: 'test:m1', name: MEMORY_EXTRACT_JOB, attempts: 1 });
    expect(parked?.reason).toBe(
      "fact extraction: the model's answer was invalid twice: the answer holds no JSON object",
    );
    expect(server.chatRequests()).toHaveLength(2);
    expect(memory.memoriesOf('test:person-1')).toEqual([]);
  });

  it('handles two jobs at a time', async () => {
    const memory = createInMemoryMemory();
    server.setResponder(() => ({ text: '{"facts":[]}', delayMs: 150 }));
    const done: string[] = [];
    startMemoryExtractionWorker({
      queue,
      memory: memory.port,
      model: modelNamed('cheap-model'),
      onExtracted: (report) => done.push(report.jobId),
    });

    for (let index = 1; index <= 4; index += 1)
      await enqueueMemoryExtraction({ queue, payload: payload(index) });
    await until(() => done.length === 4, 'four jobs');

    const spans = server
      .chatRequests()
      .map((request) => [request.receivedAt, request.finishedAt ?? 0] as const);
    const overlapping = spans.map(
      ([start]) => spans.filter(([from, to]) => from <= start && start < to).length,
    );
    expect(Math.max(...overlapping)).toBe(2);
  });
  it('waits while turns wait for a turn slot, so the replies go first (replies-first)', async () => {
    const memory = createInMemoryMemory();
    server.setResponder((request): ScriptedResponse => {
      if (systemOf(request).includes('You extract lasting facts')) return { text: '{"facts":[]}' };
      return { text: 'Answered.', delayMs: 200 };
    });
    const channel = createRecordingChannel();
    // One slot: while one conversation's turn runs, the others wait for it.
    const core = createNexusCore({
      sessionStore: createSqliteSessionStore({ path: ':memory:' }),
      agent: createAgent({ model: modelNamed('chat-model') }),
      memory: { port: memory.port, jobQueue: queue, summaryIdleMs: 0 },
      maxConcurrentTurns: 1,
    });
    core.registerChannel(channel.adapter);
    cores.push(core);
    const extracted: { jobId: string; deferredMs: number }[] = [];
    startMemoryExtractionWorker({
      queue,
      memory: memory.port,
      model: modelNamed('cheap-model'),
      repliesFirst: { turnsWaiting: () => core.stats().turnsWaitingForSlot, checkEveryMs: 10 },
      onExtracted: (report) => extracted.push(report),
    });

    for (const id of ['a', 'b', 'c'])
      await core.intake(testIntent({ id, conversationId: `conversation-${id}`, text: `hello ${id}` }));
    expect(core.stats().turnsWaitingForSlot).toBe(2);
    await core.whenIdle();
    await until(() => extracted.length === 3, 'three extraction jobs');

    // Turn a's extraction was queued when b took the slot and c still waited: it ran only once c
    // had the slot, not between the turns.
    const requests = server.chatRequests().map((request) => ({
      model: (request.body as ChatCompletionRequest).model,
      receivedAt: request.receivedAt,
    }));
    const lastChatStart = Math.max(
      ...requests.filter((request) => request.model === 'chat-model').map((request) => request.receivedAt),
    );
    const firstExtraction = Math.min(
      ...requests.filter((request) => request.model === 'cheap-model').map((request) => request.receivedAt),
    );
    expect(requests.filter((request) => request.model === 'chat-model')).toHaveLength(3);
    expect(firstExtraction).toBeGreaterThanOrEqual(lastChatStart);
    // Turn a's job reports the wait (about one turn: b's 200 ms).
    expect(extracted.find((report) => report.jobId === 'test:a')?.deferredMs).toBeGreaterThan(100);
  });

  it('runs anyway once it has waited maxWaitMs, so extraction is delayed, never starved', async () => {
    const memory = createInMemoryMemory();
    server.setResponder(() => ({ text: '{"facts":[]}' }));
    const done: number[] = [];
    startMemoryExtractionWorker({
      queue,
      memory: memory.port,
      model: modelNamed('cheap-model'),
      // Turns always waiting: an overload that does not end.
      repliesFirst: { turnsWaiting: () => 5, maxWaitMs: 150, checkEveryMs: 10 },
      onExtracted: (report) => done.push(report.deferredMs),
    });

    const enqueuedAt = Date.now();
    await enqueueMemoryExtraction({ queue, payload: payload(1) });
    await until(() => done.length === 1, 'the extraction job');

    const receivedAt = server.chatRequests()[0]?.receivedAt ?? 0;
    expect(receivedAt - enqueuedAt).toBeGreaterThanOrEqual(140);
    expect(done[0]).toBeGreaterThanOrEqual(140);
    expect(await queue.counts({ name: MEMORY_EXTRACT_JOB })).toMatchObject({ completed: 1, parked: 0 });
  });
});
