import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { JobQueue, ReplyEvent } from '@nexus/protocol';
import { createSqliteJobQueue } from '@nexus/queue-sqlite';
import {
  type ChatCompletionRequest,
  type ScriptedModelServer,
  type ScriptedResponse,
  startScriptedModelServer,
} from '@nexus/testkit/llm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgent } from '../agent/agent.ts';
import { startMemoryExtractionWorker } from '../memory/extraction/memory-extraction-worker.ts';
import { createInMemoryMemory } from '../memory/testing/in-memory-memory.ts';
import { createNexusCore, type NexusCore } from '../nexus-core.ts';
import { createSqliteSessionStore } from '../session-store/sqlite-session-store.ts';
import { createRecordingChannel, testIntent } from '../testing/recording-channel.ts';
import type { TurnReport } from './turn-types.ts';

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

async function until(condition: () => boolean, description: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${description}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const WORDS = Array.from({ length: 40 }, (_, index) => `word${index} `);
const FULL_REPLY = WORDS.join('');

function deltasOf(events: readonly ReplyEvent[]): string {
  return events.map((event) => (event.type === 'reply.delta' ? event.text : '')).join('');
}

describe('Stop', () => {
  it('aborts the model call, keeps what was shown, charges what was generated and learns only from it', async () => {
    const memory = createInMemoryMemory();
    server.setResponder((request: ChatCompletionRequest): ScriptedResponse => {
      const system = request.messages.find((message) => message.role === 'system');
      if (typeof system?.content === 'string' && system.content.includes('You extract lasting facts'))
        return { text: '{"facts":[]}' };
      return { chunks: WORDS, chunkDelayMs: 40 };
    });
    const channel = createRecordingChannel();
    const reports: TurnReport[] = [];
    const core = createNexusCore({
      sessionStore: createSqliteSessionStore({ path: ':memory:' }),
      agent: createAgent({ model: modelNamed('chat-model') }),
      memory: { port: memory.port, jobQueue: queue, summaryIdleMs: 0 },
      onTurnFinished: (report) => reports.push(report),
    });
    core.registerChannel(channel.adapter);
    cores.push(core);
    const extractions: string[] = [];
    startMemoryExtractionWorker({
      queue,
      memory: memory.port,
      model: modelNamed('cheap-model'),
      onExtracted: () => extractions.push('done'),
    });

    await core.intake(testIntent({ id: 'm1', text: 'Tell me a long story about my cat Miso' }));
    await until(() => deltasOf(channel.deliveries[0]?.events ?? []).split(' ').length > 3, 'a few words');
    const shown = deltasOf(channel.deliveries[0]?.events ?? []);
    const replyStart = channel.deliveries[0]?.events.find((event) => event.type === 'reply.start');
    const replyId = replyStart?.type === 'reply.start' ? replyStart.replyId : '';
    expect(
      core.cancelReply({
        channel: 'test',
        conversationId: 'conversation-1',
        replyId,
        shownChars: shown.length,
      }),
    ).toBe('stopping');
    await core.whenIdle();

    // The scripted provider saw its request aborted before the answer was complete.
    await until(() => server.chatRequests()[0]?.finishedAt !== undefined, 'the model request to close');
    expect(server.chatRequests()[0]?.abortedByClient).toBe(true);
    const events = channel.deliveries[0]?.events ?? [];
    expect(events.at(-1)).toEqual({ type: 'reply.end', replyId, text: shown, stopped: true });
    expect(shown.length).toBeLessThan(FULL_REPLY.length);

    const [report] = reports;
    expect(report?.outcome).toBe('ok');
    // Charged what was generated before the abort: some output, less than the whole reply.
    expect(report?.spend.modelCalls).toBe(1);
    expect(report?.spend.outputTokens).toBeGreaterThan(0);
    expect(report?.spend.outputTokens).toBeLessThan(Math.ceil(FULL_REPLY.length / 4));
    expect(report?.spend.inputTokens).toBeGreaterThan(0);

    // Memory learns from the shown text only.
    await until(() => extractions.length === 1, 'the extraction job');
    const extractionRequest = server
      .chatRequests()
      .find((request) => (request.body as ChatCompletionRequest).model === 'cheap-model');
    const extraction = JSON.stringify(
      (extractionRequest?.body as ChatCompletionRequest | undefined)?.messages,
    );
    expect(extraction).toContain(shown.trim());
    expect(extraction).not.toContain('word39');

    // Nothing left to stop.
    expect(
      core.cancelReply({ channel: 'test', conversationId: 'conversation-1', replyId, shownChars: 0 }),
    ).toBe('not_running');
  });

  it('stores the stopped reply as history the next turn sees, cut where the person stopped reading', async () => {
    server.enqueue({ chunks: WORDS, chunkDelayMs: 40 });
    const channel = createRecordingChannel();
    const sessionStore = createSqliteSessionStore({ path: ':memory:' });
    const core = createNexusCore({ sessionStore, agent: createAgent({ model: modelNamed('chat-model') }) });
    core.registerChannel(channel.adapter);
    cores.push(core);

    await core.intake(testIntent({ id: 'm1', text: 'count for me' }));
    await until(() => deltasOf(channel.deliveries[0]?.events ?? []).length > 12, 'some words');
    const start = channel.deliveries[0]?.events.find((event) => event.type === 'reply.start');
    const replyId = start?.type === 'reply.start' ? start.replyId : '';
    // The page showed fewer characters than had arrived: history keeps the page's count.
    core.cancelReply({ channel: 'test', conversationId: 'conversation-1', replyId, shownChars: 7 });
    await core.whenIdle();
    const history = await sessionStore.history({ conversationKey: 'test:conversation-1', limit: 10 });
    expect(history).toMatchObject([{ userText: 'count for me', replyText: 'word0 w' }]);

    await core.intake(testIntent({ id: 'm2', text: 'go on' }));
    await core.whenIdle();
    const next = server.chatRequests()[1]?.body as ChatCompletionRequest;
    expect(next.messages.filter((message) => message.role === 'assistant')).toMatchObject([
      { content: 'word0 w' },
    ]);
  });

  it('stops nothing when the conversation does not match the reply', async () => {
    server.enqueue({ chunks: WORDS.slice(0, 6), chunkDelayMs: 20 });
    const channel = createRecordingChannel();
    const core = createNexusCore({
      sessionStore: createSqliteSessionStore({ path: ':memory:' }),
      agent: createAgent({ model: modelNamed('chat-model') }),
    });
    core.registerChannel(channel.adapter);
    cores.push(core);
    await core.intake(testIntent({ id: 'm1', text: 'hi' }));
    await until(() => deltasOf(channel.deliveries[0]?.events ?? []).length > 0, 'the reply to start');
    const start = channel.deliveries[0]?.events.find((event) => event.type === 'reply.start');
    const replyId = start?.type === 'reply.start' ? start.replyId : '';
    expect(core.cancelReply({ channel: 'test', conversationId: 'another', replyId })).toBe('not_running');
    await core.whenIdle();
    expect(channel.replyTextOf('m1')).toBe(WORDS.slice(0, 6).join(''));
  });

  it('stops before the first words, named by the message it answers', async () => {
    server.enqueue({ text: 'far too late', delayMs: 3000 });
    const channel = createRecordingChannel();
    const sessionStore = createSqliteSessionStore({ path: ':memory:' });
    const core = createNexusCore({ sessionStore, agent: createAgent({ model: modelNamed('chat-model') }) });
    core.registerChannel(channel.adapter);
    cores.push(core);
    await core.intake(testIntent({ id: 'm1', text: 'think hard' }));
    await until(() => server.chatRequests().length === 1, 'the model request');
    expect(
      core.cancelReply({ channel: 'test', conversationId: 'conversation-1', intentId: 'm1', shownChars: 0 }),
    ).toBe('stopping');
    await core.whenIdle();
    await until(() => server.chatRequests()[0]?.finishedAt !== undefined, 'the model request to close');
    expect(server.chatRequests()[0]?.abortedByClient).toBe(true);
    expect(channel.deliveries[0]?.events.at(-1)).toMatchObject({
      type: 'reply.end',
      text: '',
      stopped: true,
    });
    expect(await sessionStore.history({ conversationKey: 'test:conversation-1', limit: 5 })).toMatchObject([
      { userText: 'think hard', replyText: '' },
    ]);
  });
});
