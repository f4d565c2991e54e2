import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { approximateTokenCounter } from '@nexus/limits-kit';
import type { JobQueue } from '@nexus/protocol';
import { silentLogger } from '@nexus/protocol';
import { createSqliteJobQueue } from '@nexus/queue-sqlite';
import {
  type ChatCompletionRequest,
  type ScriptedModelServer,
  startScriptedModelServer,
} from '@nexus/testkit/llm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgent } from '../../agent/agent.ts';
import { createNexusCore, type NexusCore } from '../../nexus-core.ts';
import type { SessionStore } from '../../session-store/session-store.ts';
import { createSqliteSessionStore } from '../../session-store/sqlite-session-store.ts';
import { createRecordingChannel, testIntent } from '../../testing/recording-channel.ts';
import { runMemoryStep } from '../context/run-memory-step.ts';
import { createInMemoryMemory } from '../testing/in-memory-memory.ts';
import { SESSION_SUMMARY_JOB } from './session-summary-job.ts';
import { startSessionSummaryWorker } from './session-summary-worker.ts';

let server: ScriptedModelServer;
let queue: JobQueue;
const cores: NexusCore[] = [];
const IDLE_MS = 150;

beforeEach(async () => {
  server = await startScriptedModelServer();
  queue = createSqliteJobQueue({ path: ':memory:', pollIntervalMs: 10 });
});
afterEach(async () => {
  await Promise.all(cores.splice(0).map((core) => core.shutdown({ deadlineMs: 1000 })));
  await queue.close({ timeoutMs: 1000 });
  await server.close();
});

const systemOf = (request: ChatCompletionRequest) => String(request.messages[0]?.content ?? '');
const summaryRequests = () =>
  server
    .chatRequests()
    .map((request) => request.body as ChatCompletionRequest)
    .filter((request) => systemOf(request).includes('You write a short summary'));

async function until(condition: () => boolean | Promise<boolean>, description: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${description}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const SUMMARY =
  'They planned a weekend trip to Porto by train, leaving on Friday evening; the hotel is still to be booked.';

/** When each summary was asked of the model. */
let summaryTimes: number[] = [];

function setUp(
  summary = SUMMARY,
  options: { summaryDelayMs?: number; numbered?: boolean; idleMs?: number } = {},
) {
  const memory = createInMemoryMemory();
  const sessionStore = createSqliteSessionStore({ path: ':memory:' });
  const model = scriptModel(summary, options);
  const core = startCore({ sessionStore, memory, model, jobQueue: queue, idleMs: options.idleMs });
  startSessionSummaryWorker({ queue, memory: memory.port, model, sessionStore });
  const completed = async () => (await queue.counts({ name: SESSION_SUMMARY_JOB })).completed;
  return { core, memory, completed, sessionStore };
}

/** `numbered`: each summary ends with its number, so a later one is not the same memory as an earlier. */
function scriptModel(summary = SUMMARY, options: { summaryDelayMs?: number; numbered?: boolean } = {}) {
  summaryTimes = [];
  server.setResponder((request) => {
    if (!systemOf(request).includes('You write a short summary')) return { text: 'Sounds good.' };
    summaryTimes.push(Date.now());
    return {
      text: options.numbered ? `${summary} (${summaryTimes.length})` : summary,
      ...(options.summaryDelayMs ? { delayMs: options.summaryDelayMs } : {}),
    };
  });
  return createOpenAICompatible({ baseURL: server.baseUrl, name: 'scripted' })('scripted-model');
}

function startCore(options: {
  sessionStore: SessionStore;
  memory: ReturnType<typeof createInMemoryMemory>;
  model: ReturnType<typeof scriptModel>;
  jobQueue: JobQueue;
  idleMs?: number | undefined;
}) {
  const channel = createRecordingChannel();
  const core = createNexusCore({
    sessionStore: options.sessionStore,
    agent: createAgent({ model: options.model, systemPrompt: 'You are a test.' }),
    memory: {
      port: options.memory.port,
      jobQueue: options.jobQueue,
      summaryIdleMs: options.idleMs ?? IDLE_MS,
      tools: false,
    },
  });
  core.registerChannel(channel.adapter);
  cores.push(core);
  return core;
}

const sessionSummaries = (memory: ReturnType<typeof createInMemoryMemory>) =>
  memory.memoriesOf('test:person-1').filter((item) => item.scope === 'session');

describe('session summaries', () => {
  it('stores a summary when the conversation goes quiet and brings it back when it resumes', async () => {
    const { core, memory, completed } = setUp();

    await core.intake(testIntent({ id: 'm1', text: 'let us plan a weekend in Porto by train' }));
    await core.whenIdle();
    await until(async () => (await completed()) === 1, 'the summary job');

    const [summary] = memory.memoriesOf('test:person-1').filter((item) => item.scope === 'session');
    expect(summary).toMatchObject({
      content: SUMMARY,
      sessionId: 'test:conversation-1#summary',
      category: 'event',
      metadata: { kind: 'session-summary', throughIntentId: 'm1' },
    });
    expect(JSON.stringify(summaryRequests()[0]?.messages)).toContain(
      'Person: let us plan a weekend in Porto by train\\nAssistant: Sounds good.',
    );

    await core.intake(testIntent({ id: 'm2', text: 'where were we?' }));
    await core.whenIdle();
    const resumed = server.chatRequests().at(-1)?.body as ChatCompletionRequest;
    expect(systemOf(resumed)).toContain(`## Earlier in this conversation\n${SUMMARY}`);
  });

  it('summarises once, after the last turn, from one job per conversation, when messages keep coming', async () => {
    const { core, memory, completed } = setUp();

    await core.intake(testIntent({ id: 'm1', text: 'first' }));
    await core.intake(testIntent({ id: 'm2', text: 'second' }));
    await core.whenIdle();
    // One job: the second turn, within the quiet period of the first, left the first turn's job
    // as it was; that job, finding the second turn, runs again once the conversation is quiet.
    expect(await queue.counts({ name: SESSION_SUMMARY_JOB })).toMatchObject({ delayed: 1, waiting: 0 });
    await until(() => sessionSummaries(memory).length === 1, 'the summary');
    await new Promise((resolve) => setTimeout(resolve, 2 * IDLE_MS));

    expect(await queue.counts({ name: SESSION_SUMMARY_JOB })).toMatchObject({
      delayed: 0,
      waiting: 0,
      active: 0,
    });
    expect(await completed()).toBeLessThanOrEqual(2);
    expect(summaryRequests()).toHaveLength(1);
    const summaries = memory.memoriesOf('test:person-1').filter((item) => item.scope === 'session');
    expect(summaries.map((item) => item.metadata.throughIntentId)).toEqual(['m2']);
  });

  it('measures the quiet period from the last turn, not from the turn that scheduled the job', async () => {
    // Long enough for the second turn to be stored well within the first turn's quiet period.
    const idleMs = 600;
    const { core, memory, sessionStore } = setUp(SUMMARY, { idleMs });
    await core.intake(testIntent({ id: 'm1', text: 'first' }));
    await core.whenIdle();
    // Within the first turn's quiet period: the job is left as it was, and runs before this
    // turn has been quiet long enough.
    await new Promise((resolve) => setTimeout(resolve, idleMs / 2));
    await core.intake(testIntent({ id: 'm2', text: 'second' }));
    await core.whenIdle();
    await until(() => sessionSummaries(memory).length === 1, 'the summary');

    const [first, last] = await sessionStore.history({ conversationKey: 'test:conversation-1', limit: 10 });
    expect(last?.intentId).toBe('m2');
    expect(last?.createdAt ?? 0).toBeLessThan((first?.createdAt ?? 0) + idleMs);
    expect(summaryTimes).toHaveLength(1);
    expect(summaryTimes[0]).toBeGreaterThanOrEqual((last?.createdAt ?? 0) + idleMs);
    expect(sessionSummaries(memory).map((item) => item.metadata.throughIntentId)).toEqual(['m2']);
  });

  it('summarises a turn that came in while a summary ran, in a follow-up job', async () => {
    const { core, memory } = setUp(SUMMARY, { summaryDelayMs: 300, numbered: true });
    await core.intake(testIntent({ id: 'm1', text: 'first' }));
    await core.whenIdle();
    await until(() => summaryTimes.length === 1, 'the first summary to start');
    await core.intake(testIntent({ id: 'm2', text: 'second' }));
    await core.whenIdle();
    await until(
      () => sessionSummaries(memory).some((item) => item.metadata.throughIntentId === 'm2'),
      'the follow-up summary',
    );

    expect(summaryTimes).toHaveLength(2);
    expect(sessionSummaries(memory)).toMatchObject([
      { content: `${SUMMARY} (2)`, metadata: { throughIntentId: 'm2' } },
    ]);
  });

  it('keeps a skipped turn through a restart: the job waiting in the file summarises it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'session-summary-restart-'));
    try {
      const memory = createInMemoryMemory();
      const model = scriptModel();
      const paths = { queue: join(dir, 'jobs.sqlite'), sessions: join(dir, 'sessions.sqlite') };
      // The gateway before the restart: it takes the turns and enqueues, and stops before the job runs.
      const before = createSqliteJobQueue({ path: paths.queue, pollIntervalMs: 10 });
      const core = startCore({
        sessionStore: createSqliteSessionStore({ path: paths.sessions }),
        memory,
        model,
        jobQueue: before,
      });
      await core.intake(testIntent({ id: 'm1', text: 'first' }));
      await core.intake(testIntent({ id: 'm2', text: 'second' }));
      await core.whenIdle();
      await cores.splice(cores.indexOf(core), 1)[0]?.shutdown({ deadlineMs: 1000 });
      await before.close({ timeoutMs: 1000 });

      const after = createSqliteJobQueue({ path: paths.queue, pollIntervalMs: 10 });
      const sessionStore = createSqliteSessionStore({ path: paths.sessions });
      try {
        startSessionSummaryWorker({ queue: after, memory: memory.port, model, sessionStore });
        await until(() => sessionSummaries(memory).length === 1, 'the summary after the restart');
        await new Promise((resolve) => setTimeout(resolve, 2 * IDLE_MS));
        expect(summaryTimes).toHaveLength(1);
        expect(sessionSummaries(memory).map((item) => item.metadata.throughIntentId)).toEqual(['m2']);
        expect(await after.counts({ name: SESSION_SUMMARY_JOB })).toMatchObject({ waiting: 0, delayed: 0 });
      } finally {
        await after.close({ timeoutMs: 1000 });
        await sessionStore.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('lets per-turn jobs of an earlier version stand down beside the debounced one', async () => {
    const { core, memory, completed } = setUp();
    await core.intake(testIntent({ id: 'm1', text: 'first' }));
    await core.whenIdle();
    // As the previous version scheduled it, one job per turn with the turn in its id, still
    // waiting in the file: the conversation has gone on, so it must not summarise.
    await queue.enqueue({
      name: SESSION_SUMMARY_JOB,
      payload: { userId: 'test:person-1', sessionId: 'test:conversation-1', lastIntentId: 'm1' },
      jobId: 'test:conversation-1:m1',
      delayMs: IDLE_MS,
    });
    await core.intake(testIntent({ id: 'm2', text: 'second' }));
    await core.whenIdle();
    await until(() => sessionSummaries(memory).length === 1, 'the summary');
    await until(async () => (await completed()) >= 2, 'the old job and the debounced one');
    await new Promise((resolve) => setTimeout(resolve, 2 * IDLE_MS));

    expect(summaryRequests()).toHaveLength(1);
    const summaries = memory.memoriesOf('test:person-1').filter((item) => item.scope === 'session');
    expect(summaries.map((item) => item.metadata.throughIntentId)).toEqual(['m2']);
  });

  it('never offers a summary as a known fact, and leaves out one from another generation', async () => {
    const { core, memory, completed } = setUp();
    await core.intake(testIntent({ id: 'm1', text: 'let us plan a weekend in Porto by train' }));
    await core.whenIdle();
    await until(async () => (await completed()) === 1, 'the summary job');
    // A message with the summary's words: the summary comes once, as the summary, never as a fact.
    await core.intake(testIntent({ id: 'm2', text: 'weekend trip Porto train hotel Friday' }));
    await core.whenIdle();
    const next = systemOf(server.chatRequests().at(-1)?.body as ChatCompletionRequest);
    expect(next.split(SUMMARY)).toHaveLength(2);
    expect(next).toContain(`## Earlier in this conversation\n${SUMMARY}`);
    expect(next).not.toMatch(/## Known Facts[^#]*hotel is still to be booked/);

    const resumedStep = (currentIntentIds: Set<string>) =>
      runMemoryStep({
        memory: memory.port,
        userId: 'test:person-1',
        query: 'where were we?',
        sessionId: 'test:conversation-1',
        budgetMs: 2_000,
        tokenBudget: 2_000,
        limit: 20,
        includeProfile: false,
        includeSessionSummary: true,
        currentIntentIds,
        profileTokenBudget: 0,
        profileLimit: 0,
        tokenCounter: approximateTokenCounter,
        now: Date.now,
        logger: silentLogger,
      });
    expect((await resumedStep(new Set(['m1', 'm2']))).block).toContain(SUMMARY);
    // After /new the generation's history holds none of the summarised turns.
    expect((await resumedStep(new Set(['m9']))).block).toBe('');
  });

  it('does not store a summary under 100 characters', async () => {
    const { core, memory, completed } = setUp('They said hello.');
    await core.intake(testIntent({ id: 'm1', text: 'hello' }));
    await core.whenIdle();
    await until(async () => (await completed()) === 1, 'the summary job');
    expect(summaryRequests()).toHaveLength(1);
    expect(memory.memoriesOf('test:person-1').filter((item) => item.scope === 'session')).toEqual([]);
  });

  it('does not summarise group conversations', async () => {
    const { core } = setUp();
    await core.intake({
      ...testIntent({ id: 'g1', text: 'hello group' }),
      conversation: { id: 'g', kind: 'group' },
    });
    await core.whenIdle();
    expect(await queue.counts({ name: SESSION_SUMMARY_JOB })).toMatchObject({ waiting: 0, delayed: 0 });
  });
});
