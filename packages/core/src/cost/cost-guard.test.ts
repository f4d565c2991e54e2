import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import {
  type ChatCompletionRequest,
  type RecordedModelRequest,
  type ScriptedModelServer,
  startScriptedModelServer,
} from '@nexus/testkit/llm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgent } from '../agent/agent.ts';
import { createInMemoryMemory } from '../memory/testing/in-memory-memory.ts';
import { createNexusCore, type NexusCore, type NexusCoreOptions } from '../nexus-core.ts';
import { createSqliteSessionStore } from '../session-store/sqlite-session-store.ts';
import { DEFAULT_SUBAGENT_SYSTEM_PROMPT } from '../subagents/subagent-settings.ts';
import { createRecordingChannel, testIntent } from '../testing/recording-channel.ts';
import type { TurnReport } from '../turn/run-turn.ts';
import { createSqliteDailyTokenBudget } from './daily-token-budget.ts';

let server: ScriptedModelServer;
let directory: string;
const cores: NexusCore[] = [];
beforeEach(async () => {
  server = await startScriptedModelServer();
  directory = await mkdtemp(join(tmpdir(), 'nexus-cost-'));
});
afterEach(async () => {
  await Promise.all(cores.splice(0).map((core) => core.shutdown({ deadlineMs: 1000 })));
  await server.close();
  await rm(directory, { recursive: true, force: true });
});

const bodyOf = (request: RecordedModelRequest) => request.body as ChatCompletionRequest;
const isSubagent = (request: ChatCompletionRequest) =>
  String(request.messages[0]?.content ?? '').startsWith(DEFAULT_SUBAGENT_SYSTEM_PROMPT);
const toolResults = (request: ChatCompletionRequest) =>
  request.messages.filter((message) => message.role === 'tool').length;

/** A core over the real agent and the scripted server, with memory tools and `delegate`. */
function setUp(options: Partial<NexusCoreOptions> = {}) {
  const memory = createInMemoryMemory();
  const channel = createRecordingChannel();
  const reports: TurnReport[] = [];
  const sessionStore = createSqliteSessionStore({ path: ':memory:' });
  const model = createOpenAICompatible({ baseURL: server.baseUrl, name: 'scripted' })('scripted-model');
  const core = createNexusCore({
    sessionStore,
    // A step limit far above the cap: only the message budget can end these loops.
    agent: createAgent({ model, maxSteps: 100 }),
    memory: { port: memory.port, tools: true },
    subagents: { maxPerTurn: 8, maxParallel: 3 },
    onTurnFinished: (report) => reports.push(report),
    ...options,
  });
  core.registerChannel(channel.adapter);
  cores.push(core);
  return { core, channel, reports, sessionStore };
}

/** A model that never stops calling tools. */
function loopForever() {
  server.setResponder((request) => ({
    text: toolResults(request) === 0 ? 'Let me look that up. ' : '',
    toolCalls: [{ name: 'recall', arguments: { query: `attempt ${toolResults(request)}` } }],
  }));
}

describe('cost guard', () => {
  it('stops a model that calls tools forever at the cap of model calls, and answers with what it has', async () => {
    const { core, channel, reports, sessionStore } = setUp();
    loopForever();

    await core.intake(testIntent({ id: 'm1', text: 'find everything' }));
    await core.whenIdle();

    expect(server.chatRequests()).toHaveLength(12);
    expect(channel.replyTextOf('m1')).toBe(
      'Let me look that up. \n\n(I stopped here: this message reached its limit of 12 model calls, so this answer may be incomplete.)',
    );
    const events = channel.deliveriesFor('m1')[0]?.events ?? [];
    expect(events.some((event) => event.type === 'error')).toBe(false);
    expect(reports[0]).toMatchObject({
      outcome: 'ok',
      budgetExhausted: 'model_calls',
      spend: { modelCalls: 12, inputTokens: expect.any(Number), outputTokens: expect.any(Number) },
    });
    const [stored] = await sessionStore.history({ conversationKey: 'test:conversation-1', limit: 5 });
    expect(stored?.replyText).toContain('limit of 12 model calls');
  });

  it('counts every subagent call, nested and parallel, toward the one cap of the message', async () => {
    const { core, channel, reports } = setUp({ turnLimits: { maxModelCalls: 9 } });
    server.setResponder((request) => {
      if (isSubagent(request))
        return { toolCalls: [{ name: 'recall', arguments: { query: `more ${toolResults(request)}` } }] };
      if (toolResults(request) > 0) return { text: 'Merged.' };
      return {
        toolCalls: ['a', 'b', 'c'].map((task) => ({ name: 'delegate', arguments: { task: `task ${task}` } })),
      };
    });

    await core.intake(testIntent({ id: 'm1', text: 'plan it all' }));
    await core.whenIdle();

    const requests = server.chatRequests().map(bodyOf);
    expect(requests).toHaveLength(9);
    expect(requests.filter(isSubagent)).toHaveLength(8);
    expect(reports[0]).toMatchObject({ budgetExhausted: 'model_calls', spend: { modelCalls: 9 } });
    expect(channel.replyTextOf('m1')).toBe(
      'I stopped before finishing: this message reached its limit of 9 model calls. Please ask again in smaller steps.',
    );
  });

  it('stops at the cap of output tokens and limits each request to what is left', async () => {
    const { core, channel, reports } = setUp({ turnLimits: { maxOutputTokens: 100 } });
    // About 60 output tokens a call (the scripted server counts four characters a token).
    const long = 'x'.repeat(230);
    server.setResponder(() => ({ toolCalls: [{ name: 'recall', arguments: { query: long } }] }));

    await core.intake(testIntent({ id: 'm1', text: 'write a lot' }));
    await core.whenIdle();

    const requests = server.chatRequests().map(bodyOf);
    expect(requests).toHaveLength(2);
    expect(requests[0]?.max_tokens).toBe(100);
    const first = reports[0]?.spend;
    expect(requests[1]?.max_tokens).toBe(100 - (first ? first.outputTokens / 2 : 0));
    expect(reports[0]).toMatchObject({ budgetExhausted: 'output_tokens' });
    expect(first?.outputTokens).toBeGreaterThanOrEqual(100);
    expect(channel.replyTextOf('m1')).toContain('limit of 100 output tokens');
  });

  it('stops at the cap of input tokens: every call re-sends the growing context', async () => {
    const { core, channel, reports } = setUp({ turnLimits: { maxInputTokens: 3000 } });
    // Each tool round adds a long result to the context, so each call's input grows.
    const long = 'y'.repeat(2000);
    server.setResponder(() => ({ toolCalls: [{ name: 'recall', arguments: { query: long } }] }));

    await core.intake(testIntent({ id: 'm1', text: 'read everything' }));
    await core.whenIdle();

    const calls = server.chatRequests().length;
    expect(calls).toBeGreaterThan(1);
    expect(calls).toBeLessThan(12);
    const spend = reports[0]?.spend;
    expect(reports[0]).toMatchObject({ budgetExhausted: 'input_tokens', spend: { modelCalls: calls } });
    // Refused only once the cap was reached: the calls before it stayed under it.
    expect(spend?.inputTokens).toBeGreaterThanOrEqual(3000);
    expect(channel.replyTextOf('m1')).toContain('limit of 3,000 input tokens');
  });

  it("refuses a group's turns once the group's daily allowance is used, whoever writes", async () => {
    const now = Date.parse('2026-03-01T12:00:00Z');
    const { core, channel } = setUp({
      dailyBudget: createSqliteDailyTokenBudget({ path: ':memory:', tokensPerGroupPerDay: 30 }),
      now: () => now,
    });
    const inGroup = (id: string, userId: string) => ({
      ...testIntent({ id, conversationId: 'team' }),
      conversation: { id: 'team', kind: 'group' as const },
      userId,
      mentionsAssistant: true,
    });
    await core.intake(inGroup('g1', 'test:ann'));
    await core.whenIdle();
    expect(channel.replyTextOf('g1')).toBe('Echo: hello there');
    // Another member, who has spent nothing: the group's allowance is used up.
    await core.intake(inGroup('g2', 'test:bob'));
    await core.whenIdle();
    expect(channel.replyTextOf('g2')).toMatch(/^This group has used today's allowance of 30 tokens/);
    // Bob's own direct chat is not the group's: no personal limit is set, so he is answered.
    await core.intake({ ...testIntent({ id: 'd1', conversationId: 'dm-bob' }), userId: 'test:bob' });
    await core.whenIdle();
    expect(channel.replyTextOf('d1')).toBe('Echo: hello there');
    expect(server.chatRequests()).toHaveLength(2);
  });

  it('refuses the turn after the daily allowance is used, without calling the model, across a restart', async () => {
    const path = join(directory, 'token-budget.db');
    let now = Date.parse('2026-03-01T21:30:00Z');
    const first = setUp({
      dailyBudget: createSqliteDailyTokenBudget({ path, tokensPerDay: 30 }),
      now: () => now,
    });

    await first.core.intake(testIntent({ id: 'm1', text: 'hello' }));
    await first.core.whenIdle();
    expect(first.channel.replyTextOf('m1')).toBe('Echo: hello');
    const spent = first.reports[0]?.spend;
    expect((spent?.inputTokens ?? 0) + (spent?.outputTokens ?? 0)).toBeGreaterThanOrEqual(30);
    await first.core.shutdown({ deadlineMs: 1000 });

    const second = setUp({
      dailyBudget: createSqliteDailyTokenBudget({ path, tokensPerDay: 30 }),
      now: () => now,
    });
    await second.core.intake(testIntent({ id: 'm2', text: 'hello again' }));
    await second.core.whenIdle();
    expect(server.chatRequests()).toHaveLength(1);
    expect(second.channel.replyTextOf('m2')).toBe(
      "You have used today's allowance of 30 tokens, so I cannot answer until it resets at 00:00 UTC (in 2 h 30 min). Commands such as /help still work.",
    );
    expect(second.reports[0]).toMatchObject({ budgetExhausted: 'daily_tokens', spend: { modelCalls: 0 } });

    now = Date.parse('2026-03-02T00:00:01Z');
    await second.core.intake(testIntent({ id: 'm3', text: 'new day' }));
    await second.core.whenIdle();
    expect(second.channel.replyTextOf('m3')).toBe('Echo: new day');
    expect(server.chatRequests()).toHaveLength(2);
  });
});

describe('daily token budget store', () => {
  it('keeps spend per person and day, and forgets a person entirely', () => {
    const path = join(directory, 'token-budget.db');
    const day = Date.parse('2026-03-01T12:00:00Z');
    const budget = createSqliteDailyTokenBudget({ path, tokensPerDay: 100 });
    budget.charge('web:a', 60, day);
    budget.charge('web:a', 50, day + 1000);
    budget.charge('web:b', 10, day);
    expect(budget.check('web:a', day)).toEqual({
      allowed: false,
      spent: 110,
      limit: 100,
      resetsAt: Date.parse('2026-03-02T00:00:00Z'),
    });
    expect(budget.check('web:b', day).allowed).toBe(true);
    // No group limit was given: a group is never refused and nothing is kept for it.
    budget.charge('group:test:team', 500, day);
    expect(budget.check('group:test:team', day)).toMatchObject({ allowed: true, spent: 0 });
    expect(budget.forget('web:a')).toBe(1);
    expect(budget.check('web:a', day)).toMatchObject({ allowed: true, spent: 0 });
    budget.close();
  });

  it('writes the charges of one event-loop turn together, counting them before they are written', async () => {
    const path = join(directory, 'token-budget.db');
    const day = Date.parse('2026-03-01T12:00:00Z');
    const budget = createSqliteDailyTokenBudget({ path, tokensPerDay: 100 });
    const otherProcess = createSqliteDailyTokenBudget({ path, tokensPerDay: 100 });
    budget.charge('web:a', 60, day);
    budget.charge('web:a', 50, day);
    // Queued: this budget already refuses, another connection does not see the spend yet.
    expect(budget.check('web:a', day)).toMatchObject({ allowed: false, spent: 110 });
    expect(otherProcess.check('web:a', day).spent).toBe(0);
    await new Promise((resolve) => setImmediate(resolve));
    expect(otherProcess.check('web:a', day)).toMatchObject({ allowed: false, spent: 110 });
    // Closing writes what is still queued.
    budget.charge('web:b', 7, day);
    budget.close();
    expect(otherProcess.check('web:b', day).spent).toBe(7);
    otherProcess.close();
  });

  it("keeps the committed spend between checks, in step with its own writes and with another process's from the next pass", async () => {
    const path = join(directory, 'token-budget.db');
    const day = Date.parse('2026-03-01T12:00:00Z');
    const nextPass = () => new Promise((resolve) => setImmediate(resolve));
    const budget = createSqliteDailyTokenBudget({ path, tokensPerDay: 100 });
    const otherProcess = createSqliteDailyTokenBudget({ path, tokensPerDay: 100 });
    budget.charge('web:a', 30, day);
    await nextPass();
    expect(budget.check('web:a', day).spent).toBe(30);
    budget.charge('web:a', 20, day);
    await nextPass();
    expect(budget.check('web:a', day).spent).toBe(50);
    otherProcess.charge('web:a', 25, day);
    await nextPass();
    expect(budget.check('web:a', day)).toMatchObject({ allowed: true, spent: 75 });
    otherProcess.charge('web:a', 25, day);
    await nextPass();
    expect(budget.check('web:a', day)).toMatchObject({ allowed: false, spent: 100 });
    expect(budget.forget('web:a')).toBe(1);
    expect(budget.check('web:a', day).spent).toBe(0);
    otherProcess.close();
    budget.close();
  });
});
