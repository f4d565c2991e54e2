import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { createSqliteMemoryStore, MemoryService } from '@nexus/memory';
import type { JobProcessor, JobQueue, Revision } from '@nexus/protocol';
import { createSqliteJobQueue } from '@nexus/queue-sqlite';
import { createTestChannel, type TestChannel } from '@nexus/testkit/channel';
import {
  type ChatCompletionMessage,
  type ChatCompletionRequest,
  type ScriptedModelServer,
  type ScriptedResponse,
  startScriptedModelServer,
} from '@nexus/testkit/llm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgent } from '../agent/agent.ts';
import type { ExtractionReport } from '../memory/extraction/extract-memories.ts';
import { FROM_EDITED_MESSAGE } from '../memory/extraction/extraction-prompts.ts';
import { startMemoryExtractionWorker } from '../memory/extraction/memory-extraction-worker.ts';
import { createNexusCore, type NexusCore } from '../nexus-core.ts';
import { createSqliteSessionStore } from '../session-store/sqlite-session-store.ts';

// Edits and deletes end to end: the test channel sends them, the real core takes them through its
// durable intake and lanes, the AI SDK asks the scripted model over HTTP, history is SQLite and
// memory is the real MemoryService on its SQLite store, fed by the real extraction worker.

let server: ScriptedModelServer;
const closers: Array<() => Promise<void>> = [];
const directories: string[] = [];

beforeEach(async () => {
  server = await startScriptedModelServer();
  server.setResponder(respond);
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await server.close();
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

const messageText = (message: ChatCompletionMessage): string =>
  typeof message.content === 'string'
    ? message.content
    : (message.content ?? []).map((part) => part.text ?? '').join('');
const systemOf = (request: ChatCompletionRequest) =>
  messageText(request.messages.find((message) => message.role === 'system') ?? { role: 'system' });
const lastUserOf = (request: ChatCompletionRequest) =>
  messageText(request.messages.filter((message) => message.role === 'user').at(-1) ?? { role: 'user' });
const isFactExtraction = (request: ChatCompletionRequest) =>
  systemOf(request).includes('You extract lasting facts');
const isDecision = (request: ChatCompletionRequest) =>
  systemOf(request).includes('long-term memory up to date');

/** The scripted model: answers chat with "answer to <text>", extracts where someone lives, decides edits. */
function respond(request: ChatCompletionRequest): ScriptedResponse {
  if (isFactExtraction(request)) {
    const prompt = lastUserOf(request);
    const current = prompt.includes('It now says:') ? prompt.split('It now says:')[1]! : prompt;
    const said = current.split('The assistant replied:')[0]!;
    const city = ['Lisbon', 'Porto'].find((name) => said.includes(name));
    const facts = city ? [{ content: `Lives in ${city}`, category: 'fact', source: 'user_explicit' }] : [];
    return { text: JSON.stringify({ facts }) };
  }
  if (isDecision(request)) {
    const prompt = lastUserOf(request);
    const newFact = /^1\. (.+) \(fact\)$/m.exec(prompt)?.[1];
    const marked = prompt.split('\n').find((line) => line.includes(FROM_EDITED_MESSAGE));
    const number = marked ? Number(/^\[(\d+)\]/.exec(marked)?.[1]) : undefined;
    const decisions =
      number === undefined
        ? [{ fact: 1, action: 'ADD' }]
        : newFact
          ? [{ fact: 1, action: 'UPDATE', memory: number, content: newFact }]
          : [{ action: 'DELETE', memory: number }];
    return { text: JSON.stringify({ decisions }) };
  }
  return { text: `answer to ${lastUserOf(request)}` };
}

const chatRequests = () =>
  server
    .chatRequests()
    .map((recorded) => recorded.body as ChatCompletionRequest)
    .filter((request) => !isFactExtraction(request) && !isDecision(request));
const transcript = (request: ChatCompletionRequest) =>
  request.messages.map((message) => `${message.role}: ${messageText(message)}`).join('\n');

function storePath(): string {
  const directory = mkdtempSync(join(tmpdir(), 'nexus-revisions-'));
  directories.push(directory);
  return join(directory, 'sessions.sqlite');
}

interface Started {
  core: NexusCore;
  channel: TestChannel;
  memory?: { service: MemoryService; extracted: ExtractionReport[] };
}

async function start(options: { path?: string; memory?: boolean } = {}): Promise<Started> {
  const model = createOpenAICompatible({ baseURL: server.baseUrl, name: 'scripted', apiKey: 'k' })('m');
  let memory: Started['memory'];
  let queue: JobQueue | undefined;
  let worker: JobProcessor | undefined;
  if (options.memory) {
    const service = new MemoryService({ store: createSqliteMemoryStore({ path: ':memory:' }) });
    queue = createSqliteJobQueue({ path: ':memory:', pollIntervalMs: 10 });
    const extracted: ExtractionReport[] = [];
    worker = startMemoryExtractionWorker({
      queue,
      memory: service,
      model,
      onExtracted: (report) => extracted.push(report),
    });
    memory = { service, extracted };
  }
  const core = createNexusCore({
    sessionStore: createSqliteSessionStore({ path: options.path ?? ':memory:' }),
    agent: createAgent({ model, maxRetries: 0 }),
    ...(memory && queue ? { memory: { port: memory.service, jobQueue: queue, summaryIdleMs: 0 } } : {}),
  });
  const channel = createTestChannel();
  core.registerChannel(channel);
  await channel.start({ sink: core.intake });
  closers.push(async () => {
    await core.shutdown({ deadlineMs: 500 });
    await worker?.stop({ timeoutMs: 500 });
    await queue?.close({ timeoutMs: 500 });
  });
  return { core, channel, ...(memory ? { memory } : {}) };
}

const DM = 'dm:user-1';
const edit = (target: string, version: number): { id: string; revises: Revision } => ({
  id: `${target}:edit:${version}`,
  revises: { kind: 'edit', targetIntentId: target },
});
const remove = (target: string): { id: string; text: string; revises: Revision } => ({
  id: `${target}:delete`,
  text: '',
  revises: { kind: 'delete', targetIntentId: target },
});

async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('an edit of the newest message', () => {
  it('answers again exactly once, with the new words only, threaded under the edited message', async () => {
    const { core, channel } = await start();
    await channel.send({ id: 'm1', text: 'What is 2+2?' });
    expect(await channel.waitForReply(DM)).toBe('answer to What is 2+2?');

    expect(await channel.send({ ...edit('m1', 1), text: 'What is 3+3?' })).toEqual({ status: 'accepted' });
    expect(await channel.waitForReply(DM)).toBe('answer to What is 3+3?');
    const rerun = chatRequests().at(-1)!;
    expect(transcript(rerun)).toContain('What is 3+3?');
    expect(transcript(rerun)).not.toContain('2+2');

    // The same edit handed over again is a duplicate: no second answer.
    expect(await channel.send({ ...edit('m1', 1), text: 'What is 3+3?' })).toEqual({ status: 'duplicate' });
    await core.whenIdle();
    expect(channel.replies(DM)).toEqual(['answer to What is 2+2?', 'answer to What is 3+3?']);

    const [first, second] = channel.deliveries(DM);
    expect(second?.conversation.intentId).toBe('m1');
    const replyIdOf = (delivery: typeof first) =>
      delivery?.events.find((event) => event.type === 'reply.start')?.replyId;
    expect(replyIdOf(second)).toBeDefined();
    expect(replyIdOf(second)).not.toBe(replyIdOf(first));

    // The next turn's history holds the edited exchange in place of the old one.
    await channel.send({ id: 'm2', text: 'And doubled?' });
    await channel.waitForReply(DM);
    const next = transcript(chatRequests().at(-1)!);
    expect(next).toContain('user: What is 3+3?\nassistant: answer to What is 3+3?\nuser: And doubled?');
    expect(next).not.toContain('2+2');
    expect(chatRequests()).toHaveLength(3);
  });

  it('keeps its place before a message handed over right after it (intake of an edit takes longer)', async () => {
    const { core, channel } = await start();
    await channel.send({ id: 'm1', text: 'What is 2+2?' });
    await channel.waitForReply(DM);
    const handedOver = [
      channel.send({ ...edit('m1', 1), text: 'What is 3+3?' }),
      channel.send({ id: 'm2', text: 'And doubled?' }),
    ];
    expect(await Promise.all(handedOver)).toEqual([{ status: 'accepted' }, { status: 'accepted' }]);
    await until(() => channel.replies(DM).length === 3, 'both answers');
    await core.whenIdle();
    expect(channel.replies(DM)).toEqual([
      'answer to What is 2+2?',
      'answer to What is 3+3?',
      'answer to And doubled?',
    ]);
    expect(transcript(chatRequests().at(-1)!)).toContain(
      'user: What is 3+3?\nassistant: answer to What is 3+3?\nuser: And doubled?',
    );
  });

  it('changes nothing when the text is the same, and a second, different edit answers again', async () => {
    const { core, channel } = await start();
    await channel.send({ id: 'm1', text: 'Hello there' });
    await channel.waitForReply(DM);
    await channel.send({ ...edit('m1', 1), text: 'Hello there' });
    await core.whenIdle();
    expect(chatRequests()).toHaveLength(1);
    await channel.send({ ...edit('m1', 2), text: 'Hello again' });
    expect(await channel.waitForReply(DM)).toBe('answer to Hello again');
    expect(chatRequests()).toHaveLength(2);
  });
});

describe('an edit of an older message', () => {
  it('sends no reply, and the next turn sees the corrected text and a note of the change', async () => {
    const { core, channel } = await start();
    await channel.send({ id: 'm1', text: 'My flight is on Monday' });
    await channel.waitForReply(DM);
    await channel.send({ id: 'm2', text: 'Pack light' });
    await channel.waitForReply(DM);

    await channel.send({ ...edit('m1', 1), text: 'My flight is on Tuesday' });
    await core.whenIdle();
    expect(channel.replies(DM)).toHaveLength(2);
    expect(chatRequests()).toHaveLength(2);

    await channel.send({ id: 'm3', text: 'When do I fly?' });
    await channel.waitForReply(DM);
    const next = transcript(chatRequests().at(-1)!);
    expect(next).toContain('user: My flight is on Tuesday\nassistant: answer to My flight is on Monday');
    expect(next).toMatch(
      /user: Pack light\nassistant: answer to Pack light\nuser: \[Note: the person edited one of their earlier messages\. It said "My flight is on Monday" and now says "My flight is on Tuesday"\..*\]\nuser: When do I fly\?/,
    );
  });
});

describe('an edit of a message never answered', () => {
  it('is answered as a new message; a delete of one does nothing', async () => {
    const { core, channel } = await start();
    await channel.send({ ...edit('before-nexus', 1), text: 'Is this thing on?' });
    expect(await channel.waitForReply(DM)).toBe('answer to Is this thing on?');
    expect(channel.deliveries(DM)[0]?.conversation.intentId).toBe('before-nexus');
    expect(await channel.send(remove('also-before-nexus'))).toEqual({ status: 'accepted' });
    await core.whenIdle();
    expect(chatRequests()).toHaveLength(1);

    // The answered edit is stored under the message's id: a later edit of it is an edit.
    await channel.send({ ...edit('before-nexus', 2), text: 'Is it on now?' });
    expect(await channel.waitForReply(DM)).toBe('answer to Is it on now?');
    expect(transcript(chatRequests().at(-1)!)).not.toContain('Is this thing on?');
  });
});

describe('a delete', () => {
  it('takes the exchange out of history, sends nothing, and a redelivered original is not answered', async () => {
    const { core, channel } = await start();
    await channel.send({ id: 'm1', text: 'My PIN is 4321' });
    await channel.waitForReply(DM);
    await channel.send({ id: 'm2', text: 'Nice weather' });
    await channel.waitForReply(DM);
    await channel.send(remove('m1'));
    await core.whenIdle();
    expect(channel.replies(DM)).toHaveLength(2);

    expect(await channel.send({ id: 'm1', text: 'My PIN is 4321' })).toEqual({ status: 'duplicate' });
    await channel.send({ id: 'm3', text: 'What did I tell you?' });
    await channel.waitForReply(DM);
    const next = transcript(chatRequests().at(-1)!);
    expect(next).not.toContain('4321');
    expect(next).toContain('user: Nice weather');
  });

  it('withdraws a message still waiting in its lane: it is never answered', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    server.setResponder(async (request) => {
      if (lastUserOf(request) === 'slow one') await held;
      return respond(request);
    });
    const { core, channel } = await start();
    await channel.send({ id: 'm1', text: 'slow one' });
    await until(() => chatRequests().length === 1, 'the first turn to start');
    await channel.send({ id: 'm2', text: 'oops, wrong chat' });
    await channel.send(remove('m2'));
    release();
    await core.whenIdle();
    expect(channel.replies(DM)).toEqual(['answer to slow one']);
    expect(chatRequests()).toHaveLength(1);
  });
});

describe('in a group', () => {
  it('ignores a revision of someone else’s message', async () => {
    const { core, channel } = await start();
    const group = { kind: 'group' as const, conversationId: 'g1' };
    await channel.send({
      ...group,
      id: 'g-m1',
      senderId: 'alice',
      mentionsAssistant: true,
      text: 'Book Friday',
    });
    await channel.waitForReply('g1');
    await channel.send({ ...group, ...edit('g-m1', 1), senderId: 'mallory', text: 'Cancel everything' });
    await channel.send({ ...group, ...remove('g-m1'), senderId: 'mallory' });
    await core.whenIdle();
    await channel.send({
      ...group,
      id: 'g-m2',
      senderId: 'alice',
      mentionsAssistant: true,
      text: 'Which day?',
    });
    await channel.waitForReply('g1');
    const next = transcript(chatRequests().at(-1)!);
    expect(next).toContain('user: Book Friday\nassistant: answer to Book Friday');
    expect(next).not.toContain('Cancel');
    expect(channel.replies('g1')).toHaveLength(2);
  });
});

describe('after a restart', () => {
  it('an edit accepted but not answered is replayed from the inbox and answered once', async () => {
    const path = storePath();
    const first = await start({ path });
    await first.channel.send({ id: 'm1', text: 'Colour of the sky?' });
    await first.channel.waitForReply(DM);
    server.setResponder(() => ({ hang: true }));
    await first.channel.send({ ...edit('m1', 1), text: 'Colour of the sea?' });
    await until(() => server.chatRequests().length === 2, 'the re-answer to start');
    await first.core.shutdown({ deadlineMs: 300 });

    server.setResponder(respond);
    const second = await start({ path });
    expect(await second.core.replayInbox()).toMatchObject({ replayed: 1 });
    expect(await second.channel.waitForReply(DM)).toBe('answer to Colour of the sea?');
    expect(transcript(chatRequests().at(-1)!)).not.toContain('sky');
    expect(await second.channel.send({ ...edit('m1', 1), text: 'Colour of the sea?' })).toEqual({
      status: 'duplicate',
    });
    await second.core.whenIdle();
    expect(second.channel.replies(DM)).toHaveLength(1);
  });
});

describe('memory', () => {
  const stored = async (service: MemoryService) =>
    (await service.list({ userId: 'test:user-1', limit: 100 })).map((memory) => ({
      content: memory.content,
      intentId: memory.metadata.intentId,
    }));

  it('an edit of an older message updates the fact learned from its old words', async () => {
    const { channel, memory } = await start({ memory: true });
    const { service, extracted } = memory!;
    await channel.send({ id: 'm1', text: 'I live in Lisbon' });
    await channel.waitForReply(DM);
    await until(() => extracted.length === 1, 'the first extraction');
    expect(await stored(service)).toEqual([{ content: 'Lives in Lisbon', intentId: 'm1' }]);
    await channel.send({ id: 'm2', text: 'What is good to eat?' });
    await channel.waitForReply(DM);
    await until(() => extracted.length === 2, 'the second extraction');

    await channel.send({ ...edit('m1', 1), text: 'I live in Porto' });
    await until(() => extracted.length === 3, 'the extraction of the edit');
    const extraction = server
      .chatRequests()
      .map((recorded) => recorded.body as ChatCompletionRequest)
      .filter(isFactExtraction)
      .at(-1)!;
    expect(lastUserOf(extraction)).toMatch(
      /It used to say:\n<<<\nI live in Lisbon\n>>>\n\nIt now says:\n<<<\nI live in Porto/,
    );
    expect(extracted.at(-1)).toMatchObject({ facts: 1, updated: 1 });
    expect(await stored(service)).toEqual([{ content: 'Lives in Porto', intentId: 'm1' }]);
    expect(channel.replies(DM)).toHaveLength(2);
  });

  it('a delete removes the fact learned from that message and nothing else', async () => {
    const { core, channel, memory } = await start({ memory: true });
    const { service, extracted } = memory!;
    await service.add({ userId: 'test:user-1', content: 'Prefers short answers', category: 'preference' });
    await channel.send({ id: 'm1', text: 'I live in Lisbon' });
    await channel.waitForReply(DM);
    await until(() => extracted.length === 1, 'the extraction');
    expect((await stored(service)).map((entry) => entry.content).sort()).toEqual([
      'Lives in Lisbon',
      'Prefers short answers',
    ]);

    await channel.send(remove('m1'));
    await until(() => extracted.length === 2, 'the extraction of the delete');
    expect(extracted.at(-1)).toMatchObject({ deleted: 1, facts: 0 });
    expect((await stored(service)).map((entry) => entry.content)).toEqual(['Prefers short answers']);
    await core.whenIdle();
    await channel.send({ id: 'm2', text: 'Where do I live?' });
    await channel.waitForReply(DM);
    expect(transcript(chatRequests().at(-1)!)).not.toContain('Lisbon');
  });
});
