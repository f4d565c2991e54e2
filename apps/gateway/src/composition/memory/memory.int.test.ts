import {
  createSqliteMemoryStore,
  type MemoryHttpServer,
  MemoryService,
  startMemoryHttpServer,
} from '@nexus/memory';
import {
  type ChatCompletionRequest,
  type RecordedModelRequest,
  type ScriptedModelServer,
  startScriptedModelServer,
} from '@nexus/testkit/llm';
import { WebChatClient } from '@nexus/testkit/web-chat';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  CHAT_REPLY,
  createGroupTestChannel,
  createLineLogger,
  isChatTurn,
  isExtraction,
  memoryAwareResponder,
  startMemoryGateway,
  withOverrides,
} from '../../testing/memory-test-support.ts';

let model: ScriptedModelServer;
const disposers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  model = await startScriptedModelServer();
});
afterEach(async () => {
  for (const dispose of disposers.splice(0).reverse()) await dispose();
  model.reset();
});
afterAll(async () => {
  await model?.close();
});

const bodyOf = (request: RecordedModelRequest) => request.body as ChatCompletionRequest;
const systemOf = (request: ChatCompletionRequest) => String(request.messages[0]?.content ?? '');
const lastUserOf = (request: ChatCompletionRequest) =>
  String(request.messages.findLast((message) => message.role === 'user')?.content ?? '');
/** The chat request that answered `text` (not the extraction calls about it). */
const chatRequestFor = (text: string) =>
  model
    .chatRequests()
    .map(bodyOf)
    .find((request) => isChatTurn(request) && lastUserOf(request) === text);

async function gatewayWithMemory(env: Record<string, string> = {}) {
  const gateway = await startMemoryGateway({ modelBaseUrl: model.baseUrl, env });
  disposers.push(() => gateway.dispose());
  return gateway;
}

async function client(gateway: { url: string; token: string }, clientId: string) {
  const connected = await WebChatClient.connect({ url: gateway.url, token: gateway.token, clientId });
  disposers.push(() => connected.close());
  return connected;
}

describe('memory in the loop, end to end with the scripted model', () => {
  it('learns from one conversation, uses it in the next, and corrects what changed', async () => {
    model.setResponder(memoryAwareResponder);
    const gateway = await gatewayWithMemory();
    const ana = await client(gateway, 'ana');

    await ana.ask('first', "I'm vegetarian and I live in Lisbon");
    await expect.poll(async () => (await gateway.memoriesOf('web:ana')).length).toBe(2);
    expect(await gateway.memoriesOf('web:ana')).toMatchObject([
      { content: 'Is vegetarian', category: 'preference', source: 'user_explicit', scope: 'user' },
      { content: 'Lives in Lisbon', category: 'fact', source: 'user_explicit', scope: 'user' },
    ]);
    const extraction = model.chatRequests().map(bodyOf).find(isExtraction);
    expect(extraction?.model).toBe('cheap-model');

    const dinner = await ana.ask('second', 'suggest a dinner place');
    expect(dinner.text).toBe(CHAT_REPLY);
    // The scripted model sends its whole answer in one write, so its deltas may reach the client
    // joined; together they carry the reply.
    const deltaText = dinner.events.map((event) => (event.type === 'reply.delta' ? event.text : '')).join('');
    expect(deltaText).toBe(CHAT_REPLY);
    const prompt = systemOf(chatRequestFor('suggest a dinner place')!);
    expect(prompt).toContain('## Known Facts (from memory)');
    expect(prompt).toContain('- Is vegetarian (preference, today, you told me)');
    expect(prompt).toContain('- Lives in Lisbon (fact, today, you told me)');

    await ana.ask('second', 'I moved to Berlin');
    await expect
      .poll(async () => (await gateway.memoriesOf('web:ana')).map((memory) => memory.content).sort())
      .toEqual(['Is vegetarian', 'Lives in Berlin']);
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    expect(metrics).toMatch(/nexus_memory_step_seconds_count\{outcome="ok"\} [1-9]/u);
    expect(metrics).toMatch(/nexus_memory_extracted_total\{action="updated"\} 1/u);
  });

  it('keeps personal memory out of a group chat: neither person’s facts reach a group prompt', async () => {
    model.setResponder(memoryAwareResponder);
    const gateway = await gatewayWithMemory({
      NEXUS_DM_ALLOWLIST: 'group-test:*',
      NEXUS_GROUP_ALLOWLIST: 'group-test:*',
    });
    const group = createGroupTestChannel();
    gateway.core.registerChannel(group.adapter);
    const say = async (id: string, person: string, text: string, conversation: 'direct' | 'group') => {
      const intent = group.intent({
        id,
        userId: person,
        text,
        conversationId: conversation === 'group' ? 'friends' : `dm-${person}`,
      });
      const result = await gateway.core.intake(
        conversation === 'group'
          ? intent
          : { ...intent, conversation: { id: `dm-${person}`, kind: 'direct' } },
      );
      expect(result).toEqual({ status: 'accepted' });
    };
    // Each tells the assistant about themselves in their own chat; the people are `group-test:<id>`.
    await say('a1', 'ana', "I'm vegetarian and I live in Lisbon", 'direct');
    await say('b1', 'ben', "I'm allergic to peanuts and I live in Porto", 'direct');
    await expect.poll(async () => (await gateway.memoriesOf('group-test:ana')).length).toBe(2);
    await expect.poll(async () => (await gateway.memoriesOf('group-test:ben')).length).toBe(2);

    for (const [index, person] of ['ana', 'ben', 'ana', 'ben'].entries())
      await say(`g${index}`, person, `what should we cook tonight? (${index})`, 'group');
    await gateway.core.whenIdle();

    for (const index of [0, 1, 2, 3]) {
      const prompt = JSON.stringify(chatRequestFor(`what should we cook tonight? (${index})`));
      expect(prompt).toContain('This is a group chat. You have no personal memory of any member here');
      expect(prompt).not.toMatch(/vegetarian|Lisbon|peanuts|Porto/u);
    }
    // In their own chats they are still known.
    await say('a2', 'ana', 'what should I cook tonight?', 'direct');
    await gateway.core.whenIdle();
    expect(systemOf(chatRequestFor('what should I cook tonight?')!)).toContain('- Is vegetarian');
    expect(group.replies.get('g3')?.at(-1)).toMatchObject({ type: 'reply.end', text: CHAT_REPLY });
  });
});

describe('a memory service that sleeps 5 s', () => {
  let memoryServer: MemoryHttpServer;
  const store = createSqliteMemoryStore({ path: ':memory:' });

  beforeAll(async () => {
    const service = new MemoryService({ store });
    const sleepy = <T>(work: () => Promise<T>, abortSignal?: AbortSignal) =>
      new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => work().then(resolve, reject), 5_000);
        abortSignal?.addEventListener('abort', () => {
          clearTimeout(timer);
          reject(abortSignal.reason);
        });
      });
    memoryServer = await startMemoryHttpServer({
      apiKey: 'memory-key-0123456789',
      service: withOverrides(service, {
        context: (options) => sleepy(() => service.context(options), options.abortSignal),
        list: (options) => sleepy(() => service.list(options), options.abortSignal),
        standingFacts: (options) => sleepy(() => service.standingFacts(options), options.abortSignal),
      }),
    });
  });
  afterAll(async () => {
    await memoryServer?.close();
    await store.close();
  });

  it('still starts the reply within 2.3 s, says it is restoring preferences, and logs a warning', async () => {
    const logger = createLineLogger();
    const gateway = await startMemoryGateway({
      modelBaseUrl: model.baseUrl,
      logger,
      env: {
        NEXUS_MEMORY_MODE: 'http',
        NEXUS_MEMORY_URL: memoryServer.url,
        NEXUS_MEMORY_API_KEY: 'memory-key-0123456789',
        NEXUS_MEMORY_EXTRACTION: 'false',
      },
    });
    disposers.push(() => gateway.dispose());
    const ana = await client(gateway, 'ana');

    const sentAt = performance.now();
    const started = ana.waitFor((frame) => frame.type === 'event' && frame.event.type === 'reply.start');
    const reply = ana.ask('slow', 'hello?');
    await started;
    const startedAfterMs = performance.now() - sentAt;
    const { events, text } = await reply;

    expect(startedAfterMs).toBeLessThan(2_300);
    expect(text).toBe('Echo: hello?');
    expect(events).toContainEqual({ type: 'status', text: 'Restoring your preferences…' });
    const warning = logger.lines.find(
      (line) => line.level === 'warn' && /memory context/u.test(line.message ?? ''),
    );
    expect(warning?.object).toMatchObject({ memory: { outcome: 'timeout' }, budgetMs: 2000 });
  });
});
