import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import {
  type ChatCompletionRequest,
  type ScriptedModelServer,
  startScriptedModelServer,
} from '@nexus/testkit/llm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgent } from './agent/agent.ts';
import { MODEL_ERROR_MESSAGES } from './errors/model-error.ts';
import { createNexusCore, type NexusCore, type NexusCoreOptions } from './nexus-core.ts';
import type { SessionStore } from './session-store/session-store.ts';
import { createSqliteSessionStore } from './session-store/sqlite-session-store.ts';
import { createRecordingChannel, createRecordingLogger, testIntent } from './testing/recording-channel.ts';
import type { TurnReport } from './turn/run-turn.ts';

let server: ScriptedModelServer;
const cores: NexusCore[] = [];
const directories: string[] = [];

beforeEach(async () => {
  server = await startScriptedModelServer();
});
afterEach(async () => {
  await Promise.all(cores.splice(0).map((core) => core.shutdown({ deadlineMs: 1000 })));
  await server.close();
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function modelFor(target: ScriptedModelServer, apiKey = 'test-key') {
  return createOpenAICompatible({ baseURL: target.baseUrl, name: 'scripted', apiKey })('scripted-model');
}

function setUp(
  options: Partial<NexusCoreOptions> & { agentOptions?: Parameters<typeof createAgent>[0] } = {},
) {
  const channel = createRecordingChannel();
  const sessionStore = options.sessionStore ?? createSqliteSessionStore({ path: ':memory:' });
  const agent = options.agent ?? createAgent({ model: modelFor(server), ...options.agentOptions });
  const core = createNexusCore({ ...options, sessionStore, agent });
  core.registerChannel(channel.adapter);
  cores.push(core);
  return { core, channel, sessionStore };
}

function chatBody(index: number): ChatCompletionRequest {
  const recorded = server.chatRequests()[index];
  if (!recorded) throw new Error(`no chat request #${index}`);
  return recorded.body as ChatCompletionRequest;
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('nexus core turns', () => {
  it('streams typing, reply.start, several deltas and reply.end to the channel, then stores the turn', async () => {
    const reports: TurnReport[] = [];
    const { core, channel, sessionStore } = setUp({ onTurnFinished: (report) => reports.push(report) });
    // Apart in time, as a real model streams (events of one socket read reach the channel joined).
    server.enqueue({ chunks: ['Echo: ', 'tell me ', 'something ', 'nice'], chunkDelayMs: 5 });
    expect(await core.intake(testIntent({ id: 'm1', text: 'tell me something nice' }))).toEqual({
      status: 'accepted',
    });
    await core.whenIdle();

    const [delivery] = channel.deliveries;
    expect(delivery?.conversation).toMatchObject({
      channel: 'test',
      conversationId: 'conversation-1',
      intentId: 'm1',
    });
    const types = delivery?.events.map((event) => event.type) ?? [];
    expect(types[0]).toBe('typing');
    expect(types[1]).toBe('reply.start');
    expect(types.at(-1)).toBe('reply.end');
    const deltas = delivery?.events.filter((event) => event.type === 'reply.delta') ?? [];
    expect(deltas.length).toBeGreaterThan(2);
    expect(types.slice(2, -1).every((type) => type === 'reply.delta')).toBe(true);
    const joined = deltas.map((event) => (event.type === 'reply.delta' ? event.text : '')).join('');
    expect(joined).toBe('Echo: tell me something nice');
    expect(channel.replyTextOf('m1')).toBe(joined);
    expect(delivery?.done).toBe(true);

    const stored = await sessionStore.history({ conversationKey: 'test:conversation-1', limit: 10 });
    expect(stored).toMatchObject([
      { intentId: 'm1', userText: 'tell me something nice', replyText: joined, outcome: 'ok' },
    ]);
    expect(stored[0]?.tokenCount).toBeGreaterThan(0);
    expect(reports).toMatchObject([
      { conversationKey: 'test:conversation-1', channel: 'test', outcome: 'ok' },
    ]);
    expect(reports[0]?.firstDeltaMs).toBeGreaterThanOrEqual(0);
  });

  it('carries the stored turn as history in the next model request', async () => {
    const { core } = setUp({ agentOptions: { model: modelFor(server), systemPrompt: 'You are a test.' } });
    await core.intake(testIntent({ id: 'm1', text: 'first question' }));
    await core.whenIdle();
    await core.intake(testIntent({ id: 'm2', text: 'second question' }));
    await core.whenIdle();
    expect(chatBody(1).messages).toEqual([
      { role: 'system', content: 'You are a test.' },
      { role: 'user', content: 'first question' },
      { role: 'assistant', content: 'Echo: first question' },
      { role: 'user', content: 'second question' },
    ]);
  });

  it('answers 50 messages in one conversation in order', async () => {
    const { core, channel } = setUp({ historyMaxTurns: 5 });
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        core.intake(testIntent({ id: `m${index}`, text: `number ${index}` })),
      ),
    );
    expect(results.every((result) => result.status === 'accepted')).toBe(true);
    await core.whenIdle();
    expect(channel.deliveries.map((delivery) => delivery.conversation.intentId)).toEqual(
      Array.from({ length: 50 }, (_, index) => `m${index}`),
    );
    for (let index = 0; index < 50; index++)
      expect(channel.replyTextOf(`m${index}`)).toBe(`Echo: number ${index}`);
    // Each model call saw the previous answers: the queue did not run ahead of the store.
    expect(chatBody(49).messages.at(-2)).toEqual({ role: 'assistant', content: 'Echo: number 48' });
    expect(chatBody(49).messages).toHaveLength(1 + 5 * 2 + 1);
  });

  it('runs 50 conversations at once under the global limit', async () => {
    let core: NexusCore | undefined;
    let mostActive = 0;
    server.setResponder((request) => {
      mostActive = Math.max(mostActive, core?.stats().activeTurns ?? 0);
      const last = request.messages.at(-1);
      return { text: `reply to ${typeof last?.content === 'string' ? last.content : ''}`, delayMs: 20 };
    });
    const setup = setUp({ maxConcurrentTurns: 8 });
    core = setup.core;
    await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        setup.core.intake(
          testIntent({ id: `m${index}`, conversationId: `c${index}`, text: `conversation ${index}` }),
        ),
      ),
    );
    expect(setup.core.stats().lanes).toBe(50);
    await setup.core.whenIdle();
    for (let index = 0; index < 50; index++)
      expect(setup.channel.replyTextOf(`m${index}`)).toBe(`reply to conversation ${index}`);
    expect(mostActive).toBeGreaterThan(1);
    expect(mostActive).toBeLessThanOrEqual(8);
    expect(setup.core.stats()).toEqual({ activeTurns: 0, queuedTurns: 0, turnsWaitingForSlot: 0, lanes: 0 });
  });

  it('answers an intent id once, also when it is redelivered after the store is reopened', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'nexus-core-'));
    directories.push(directory);
    const path = join(directory, 'sessions.db');
    const first = setUp({ sessionStore: createSqliteSessionStore({ path }) });
    const [accepted, duplicate] = await Promise.all([
      first.core.intake(testIntent({ id: 'same' })),
      first.core.intake(testIntent({ id: 'same' })),
    ]);
    expect([accepted.status, duplicate.status]).toEqual(['accepted', 'duplicate']);
    await first.core.whenIdle();
    expect(await first.core.intake(testIntent({ id: 'same' }))).toEqual({ status: 'duplicate' });
    expect(first.channel.deliveries).toHaveLength(1);
    await first.core.shutdown();

    const second = setUp({ sessionStore: createSqliteSessionStore({ path }) });
    expect(await second.core.intake(testIntent({ id: 'same' }))).toEqual({ status: 'duplicate' });
    await second.core.whenIdle();
    expect(second.channel.deliveries).toHaveLength(0);
    expect(server.chatRequests()).toHaveLength(1);
  });

  it('rejects an invalid intent with a message naming the field, and an unknown channel', async () => {
    const { core } = setUp();
    const { conversation: _dropped, ...withoutConversation } = testIntent({ id: 'bad' });
    const missing = await core.intake({ ...withoutConversation } as never);
    expect(missing).toMatchObject({ status: 'rejected', code: 'invalid_intent' });
    expect(missing.status === 'rejected' && missing.message).toMatch(/^conversation/);
    const wrongType = await core.intake({ ...testIntent({ id: 'bad2' }), text: 42 } as never);
    expect(wrongType.status === 'rejected' && wrongType.message).toMatch(/^text:/);
    const unknownChannel = await core.intake(testIntent({ id: 'x', channel: 'nowhere' }));
    expect(unknownChannel).toMatchObject({ status: 'rejected', code: 'channel_unavailable' });
    expect(core.stats().lanes).toBe(0);
  });

  it('rejects with rate_limited when a conversation has too many messages waiting', async () => {
    server.enqueue({ hang: true });
    const { core } = setUp({ maxQueuedPerConversation: 2 });
    const statuses = [];
    for (let index = 0; index < 4; index++)
      statuses.push((await core.intake(testIntent({ id: `m${index}` }))).status);
    expect(statuses).toEqual(['accepted', 'accepted', 'accepted', 'rejected']);
    expect(await core.intake(testIntent({ id: 'm3', conversationId: 'other' }))).toEqual({
      status: 'accepted',
    });
  });
});

describe('nexus core failures', () => {
  it('turns a 401 from the provider into model_rejected with a short message, and logs the cause', async () => {
    const guarded = await startScriptedModelServer({ apiKey: 'right-key' });
    const logger = createRecordingLogger();
    try {
      const { core, channel, sessionStore } = setUp({
        logger,
        agent: createAgent({ model: modelFor(guarded, 'wrong-key') }),
      });
      await core.intake(testIntent({ id: 'm1' }));
      await core.whenIdle();
      const events = channel.deliveries[0]?.events ?? [];
      expect(events.map((event) => event.type)).toEqual(['typing', 'error']);
      expect(events[1]).toEqual({
        type: 'error',
        code: 'model_rejected',
        message: MODEL_ERROR_MESSAGES.model_rejected,
        retryable: false,
      });
      const line = logger.lines.find((entry) => entry.message === 'turn failed');
      expect(line?.bindings.conversationId).toBe('test:conversation-1');
      expect(JSON.stringify(line?.object)).toContain('401');
      expect(
        (await sessionStore.history({ conversationKey: 'test:conversation-1', limit: 5 }))[0]?.outcome,
      ).toBe('error');
    } finally {
      await guarded.close();
    }
  });

  it('turns a 500 into a retryable model_unavailable, stores nothing and accepts the retry', async () => {
    server.setResponder(() => ({ status: 500 }));
    const { core, channel, sessionStore } = setUp({
      agentOptions: { model: modelFor(server), maxRetries: 0 },
    });
    await core.intake(testIntent({ id: 'm1' }));
    await core.whenIdle();
    const error = channel.deliveries[0]?.events.find((event) => event.type === 'error');
    expect(error).toMatchObject({ code: 'model_unavailable', retryable: true });
    expect(error?.type === 'error' && error.message).not.toMatch(/\bat |Error:|\n/);
    expect(server.chatRequests()).toHaveLength(1);
    expect(await sessionStore.history({ conversationKey: 'test:conversation-1', limit: 5 })).toEqual([]);
    server.setResponder(() => ({ text: 'works now' }));
    expect(await core.intake(testIntent({ id: 'm1' }))).toEqual({ status: 'accepted' });
    await core.whenIdle();
    expect(channel.replyTextOf('m1')).toBe('works now');
  });

  it('turns a model that takes too long into model_timeout', async () => {
    server.enqueue({ hang: true });
    const { core, channel } = setUp({ agentOptions: { model: modelFor(server), timeoutMs: 100 } });
    await core.intake(testIntent({ id: 'm1' }));
    await core.whenIdle();
    expect(channel.deliveries[0]?.events.at(-1)).toMatchObject({
      type: 'error',
      code: 'model_timeout',
      retryable: true,
    });
  });

  it('keeps serving when an adapter throws in deliver, and logs it', async () => {
    const logger = createRecordingLogger();
    let fail = true;
    const channel = createRecordingChannel({
      beforeDeliver: () => {
        if (fail) throw new Error('platform is down');
      },
    });
    const sessionStore = createSqliteSessionStore({ path: ':memory:' });
    const core = createNexusCore({ sessionStore, agent: createAgent({ model: modelFor(server) }), logger });
    cores.push(core);
    core.registerChannel(channel.adapter);
    await core.intake(testIntent({ id: 'm1' }));
    await core.whenIdle();
    expect(logger.lines.some((line) => line.level === 'error' && line.message?.includes('deliver'))).toBe(
      true,
    );
    fail = false;
    await core.intake(testIntent({ id: 'm2', text: 'again' }));
    await core.whenIdle();
    expect(channel.replyTextOf('m2')).toBe('Echo: again');
  });

  it('does not let a slow channel hold up other conversations', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const channel = createRecordingChannel({
      beforeDeliver: (conversation) => (conversation.conversationId === 'slow' ? held : undefined),
    });
    const core = createNexusCore({
      sessionStore: createSqliteSessionStore({ path: ':memory:' }),
      agent: createAgent({ model: modelFor(server) }),
      maxConcurrentTurns: 1,
    });
    cores.push(core);
    core.registerChannel(channel.adapter);
    await core.intake(testIntent({ id: 'slow-1', conversationId: 'slow' }));
    await core.intake(testIntent({ id: 'fast-1', conversationId: 'fast', text: 'quick' }));
    await until(() => channel.replyTextOf('fast-1') !== undefined);
    expect(channel.replyTextOf('slow-1')).toBeUndefined();
    release();
    await core.whenIdle();
    expect(channel.replyTextOf('slow-1')).toBe('Echo: hello there');
  });

  it('answers with the not-configured message when no model is set', async () => {
    const agent = createAgent({ notConfiguredMessage: 'Set NEXUS_MODEL to talk to me.' });
    expect(agent.configured).toBe(false);
    const { core, channel } = setUp({ agent });
    await core.intake(testIntent({ id: 'm1' }));
    await core.whenIdle();
    expect(channel.replyTextOf('m1')).toBe('Set NEXUS_MODEL to talk to me.');
    expect(channel.deliveries[0]?.events.some((event) => event.type === 'error')).toBe(false);
    expect(server.requests).toHaveLength(0);
  });
});

describe('nexus core shutdown', () => {
  it('aborts a hanging turn and the queued one with shutting_down, within the deadline, then closes the store', async () => {
    server.enqueue({ hang: true });
    const { core, channel, sessionStore } = setUp();
    await core.intake(testIntent({ id: 'm1' }));
    await core.intake(testIntent({ id: 'm2' }));
    await until(() => server.chatRequests().length === 1);
    const started = performance.now();
    const stopping = core.shutdown({ deadlineMs: 1200 });
    expect(await core.intake(testIntent({ id: 'm3', conversationId: 'new' }))).toMatchObject({
      status: 'rejected',
      code: 'shutting_down',
    });
    await stopping;
    expect(performance.now() - started).toBeLessThan(1200);
    for (const intentId of ['m1', 'm2']) {
      const events = channel.deliveriesFor(intentId)[0]?.events ?? [];
      expect(events.at(-1)).toEqual({
        type: 'error',
        code: 'shutting_down',
        message: MODEL_ERROR_MESSAGES.shutting_down,
        retryable: true,
      });
    }
    expect(server.chatRequests()).toHaveLength(1);
    await expect(sessionStore.history({ conversationKey: 'test:conversation-1', limit: 1 })).rejects.toThrow(
      /closed/,
    );
  });

  it('lets running turns finish when they make the deadline', async () => {
    server.enqueue({ text: 'finished in time', delayMs: 50 });
    const { core, channel } = setUp();
    await core.intake(testIntent({ id: 'm1' }));
    await core.shutdown({ deadlineMs: 5000 });
    expect(channel.replyTextOf('m1')).toBe('finished in time');
  });

  it('cuts history to the token budget from the newest turn backwards', async () => {
    const store: SessionStore = createSqliteSessionStore({ path: ':memory:' });
    const long = 'word '.repeat(40).trim();
    for (let index = 0; index < 3; index++) {
      await store.appendTurn({
        conversationKey: 'test:conversation-1',
        channel: 'test',
        userId: 'test:person-1',
        intentId: `old-${index}`,
        userText: `${index}: ${long}`,
        replyText: 'ok',
        outcome: 'ok',
        createdAt: index,
      });
    }
    const { core } = setUp({ sessionStore: store, historyTokenBudget: 100 });
    await core.intake(testIntent({ id: 'new', text: 'and now?' }));
    await core.whenIdle();
    const userTexts = chatBody(0)
      .messages.filter((message) => message.role === 'user')
      .map((message) => message.content);
    // Each stored turn is ~45 tokens: two fit in 100, the oldest is cut.
    expect(userTexts).toEqual([`1: ${long}`, `2: ${long}`, 'and now?']);
  });
});
