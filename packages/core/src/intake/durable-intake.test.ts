import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import {
  type ChatCompletionRequest,
  type ScriptedModelServer,
  startScriptedModelServer,
} from '@nexus/testkit/llm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AccessControl } from '../access/access-decision.ts';
import { createAgent } from '../agent/agent.ts';
import { createNexusCore, MAX_INBOX_REPLAYS, type NexusCore, type NexusCoreOptions } from '../nexus-core.ts';
import { createSqliteSessionStore } from '../session-store/sqlite-session-store.ts';
import { createRecordingChannel, testIntent } from '../testing/recording-channel.ts';

let server: ScriptedModelServer;
const cores: NexusCore[] = [];
const directories: string[] = [];

beforeEach(async () => {
  server = await startScriptedModelServer();
  server.setResponder((request) => ({ text: `answer to ${newestUserText(request)}` }));
});
afterEach(async () => {
  await Promise.all(cores.splice(0).map((core) => core.shutdown({ deadlineMs: 400 })));
  await server.close();
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function newestUserText(request: ChatCompletionRequest): string {
  const message = request.messages.filter((entry) => entry.role === 'user').at(-1);
  return typeof message?.content === 'string' ? message.content : '';
}

function storePath(): string {
  const directory = mkdtempSync(join(tmpdir(), 'nexus-inbox-'));
  directories.push(directory);
  return join(directory, 'sessions.sqlite');
}

function setUp(path: string, options: Partial<NexusCoreOptions> & { channelNames?: string[] } = {}) {
  const sessionStore = options.sessionStore ?? createSqliteSessionStore({ path });
  const model = createOpenAICompatible({ baseURL: server.baseUrl, name: 'scripted', apiKey: 'k' })('m');
  const core = createNexusCore({ ...options, sessionStore, agent: createAgent({ model }) });
  const channels = (options.channelNames ?? ['test']).map((name) => createRecordingChannel({ name }));
  for (const channel of channels) core.registerChannel(channel.adapter);
  cores.push(core);
  return { core, channel: channels[0]!, sessionStore };
}

const replyTexts = (
  deliveries: ReturnType<typeof createRecordingChannel>['deliveries'],
  conversation: string,
) =>
  deliveries
    .filter((delivery) => delivery.conversation.conversationId === conversation)
    .flatMap((delivery) => delivery.events)
    .flatMap((event) => (event.type === 'reply.end' ? [event.text] : []));

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('durable intake', () => {
  it('keeps turns aborted by shutdown in the inbox, unanswered, and replays them in order per conversation', async () => {
    const path = storePath();
    server.setResponder(() => ({ hang: true }));
    const first = setUp(path, { channelNames: ['test', 'elsewhere'] });
    const sent = [
      ['x1', 'X'],
      ['y1', 'Y'],
      ['x2', 'X'],
      ['x3', 'X'],
      ['y2', 'Y'],
    ] as const;
    for (const [id, conversationId] of sent) {
      expect(await first.core.intake(testIntent({ id, conversationId, text: id }))).toEqual({
        status: 'accepted',
      });
    }
    await first.core.intake(testIntent({ id: 'e1', channel: 'elsewhere', text: 'e1' }));
    await until(() => server.chatRequests().length === 3);
    await first.core.shutdown({ deadlineMs: 400 });
    const aborted = first.channel.deliveries.flatMap((delivery) => delivery.events);
    expect(aborted.filter((event) => event.type === 'error')).toHaveLength(5);
    expect(aborted.every((event) => event.type !== 'error' || event.code === 'shutting_down')).toBe(true);

    server.setResponder((request) => ({ text: `answer to ${newestUserText(request)}` }));
    const second = setUp(path);
    expect(await second.sessionStore.history({ conversationKey: 'test:X', limit: 10 })).toEqual([]);
    // Before the replay, a redelivery is already known: it is in the inbox.
    expect(await second.core.intake(testIntent({ id: 'x2', conversationId: 'X' }))).toEqual({
      status: 'duplicate',
    });
    expect(await second.core.replayInbox()).toEqual({ replayed: 5, waiting: 1, givenUp: 0 });
    await second.core.whenIdle();
    expect(replyTexts(second.channel.deliveries, 'X')).toEqual([
      'answer to x1',
      'answer to x2',
      'answer to x3',
    ]);
    expect(replyTexts(second.channel.deliveries, 'Y')).toEqual(['answer to y1', 'answer to y2']);
    const history = await second.sessionStore.history({ conversationKey: 'test:X', limit: 10 });
    expect(history.map((turn) => turn.intentId)).toEqual(['x1', 'x2', 'x3']);
    // The channel that is not registered keeps its entry for a later start.
    expect((await second.sessionStore.unfinishedIntents()).map((entry) => entry.intentId)).toEqual(['e1']);
    expect(await second.core.replayInbox()).toEqual({ replayed: 0, waiting: 1, givenUp: 0 });
  });

  it('answers an intent a crashed core had accepted exactly once: replayed by the next, then a duplicate', async () => {
    const path = storePath();
    server.enqueue({ hang: true });
    const crashed = setUp(path);
    expect(await crashed.core.intake(testIntent({ id: 'c1', text: 'c1' }))).toEqual({ status: 'accepted' });
    await until(() => server.chatRequests().length === 1);

    // The first core never finishes (as if killed); the next start opens the same file.
    const next = setUp(path);
    expect(await next.core.replayInbox()).toEqual({ replayed: 1, waiting: 0, givenUp: 0 });
    await next.core.whenIdle();
    expect(replyTexts(next.channel.deliveries, 'conversation-1')).toEqual(['answer to c1']);
    expect(await next.core.intake(testIntent({ id: 'c1', text: 'c1' }))).toEqual({ status: 'duplicate' });
    expect(await next.sessionStore.unfinishedIntents()).toEqual([]);
  });

  it('refuses as retryable while the store is locked, loses nothing stored, and takes the message afterwards', async () => {
    const path = storePath();
    const { core, sessionStore } = setUp(path, {
      sessionStore: createSqliteSessionStore({ path, busyTimeoutMs: 50 }),
    });
    expect(await core.intake(testIntent({ id: 'before', text: 'before' }))).toEqual({ status: 'accepted' });
    await core.whenIdle();

    const other = new DatabaseSync(path);
    other.exec('BEGIN IMMEDIATE');
    const refused = await core.intake(testIntent({ id: 'during', text: 'during' }));
    other.exec('ROLLBACK');
    other.close();
    expect(refused).toMatchObject({ status: 'rejected', code: 'internal', retryable: true });
    expect(await sessionStore.hasIntent({ channel: 'test', intentId: 'during' })).toBe(false);

    expect(await core.intake(testIntent({ id: 'during', text: 'during' }))).toEqual({ status: 'accepted' });
    await core.whenIdle();
    const history = await sessionStore.history({ conversationKey: 'test:conversation-1', limit: 10 });
    expect(history.map((turn) => [turn.intentId, turn.replyText])).toEqual([
      ['before', 'answer to before'],
      ['during', 'answer to during'],
    ]);
  });

  it('keeps a command answer whose delivery was cut by shutdown and delivers the same words on replay', async () => {
    const path = storePath();
    let effects = 0;
    const access: AccessControl = {
      check: async (intent) => ({
        action: 'reply',
        intent,
        reply: async () => {
          effects += 1;
          return `done ${effects}`;
        },
      }),
      scopeSessionStore: (store) => store,
    };
    const first = createNexusCore({
      sessionStore: createSqliteSessionStore({ path }),
      agent: createAgent({}),
      access,
    });
    const stuck = createRecordingChannel({ beforeDeliver: () => new Promise(() => {}) });
    first.registerChannel(stuck.adapter);
    expect(await first.intake(testIntent({ id: 'cmd', text: '/do' }))).toEqual({ status: 'accepted' });
    await until(() => stuck.deliveries.length === 1);
    await first.shutdown({ deadlineMs: 200 });

    const second = setUp(path, { access });
    expect(await second.core.replayInbox()).toEqual({ replayed: 1, waiting: 0, givenUp: 0 });
    await second.core.whenIdle();
    expect(replyTexts(second.channel.deliveries, 'conversation-1')).toEqual(['done 1']);
    expect(effects).toBe(1);
    expect(await second.sessionStore.unfinishedIntents()).toEqual([]);
  });

  it('answers with an error, once, a message that several starts in a row could not finish', async () => {
    const path = storePath();
    server.enqueue({ hang: true });
    const crashed = setUp(path);
    await crashed.core.intake(testIntent({ id: 'poison', text: 'poison' }));
    await until(() => server.chatRequests().length === 1);
    const raw = new DatabaseSync(path);
    raw.exec(`UPDATE inbox SET replays = ${MAX_INBOX_REPLAYS}`);
    raw.close();

    const next = setUp(path);
    expect(await next.core.replayInbox()).toEqual({ replayed: 0, waiting: 0, givenUp: 1 });
    await next.core.whenIdle();
    const events = next.channel.deliveries.flatMap((delivery) => delivery.events);
    expect(events).toEqual([expect.objectContaining({ type: 'error', code: 'internal', retryable: false })]);
    expect(await next.sessionStore.unfinishedIntents()).toEqual([]);
    expect(server.chatRequests()).toHaveLength(1);
  });

  it('counts each replay before it runs', async () => {
    const path = storePath();
    server.enqueue({ hang: true }, { hang: true });
    const first = setUp(path);
    await first.core.intake(testIntent({ id: 'slow', text: 'slow' }));
    await until(() => server.chatRequests().length === 1);
    const second = setUp(path);
    await second.core.replayInbox();
    await until(() => server.chatRequests().length === 2);
    expect((await second.sessionStore.unfinishedIntents()).map((entry) => entry.replays)).toEqual([1]);
  });
});
