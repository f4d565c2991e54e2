import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createSqliteSessionStore } from '@nexus/core';
import { type ScriptedModelServer, startScriptedModelServer } from '@nexus/testkit/llm';
import { WebChatClient } from '@nexus/testkit/web-chat';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestGateway } from '../testing/test-gateway.ts';

type TestGateway = Awaited<ReturnType<typeof startTestGateway>>;

let model: ScriptedModelServer;
let gateway: TestGateway;
const clients: WebChatClient[] = [];

async function connect(clientId?: string): Promise<WebChatClient> {
  const client = await WebChatClient.connect({
    url: gateway.url,
    token: gateway.token,
    ...(clientId ? { clientId } : {}),
  });
  clients.push(client);
  return client;
}

beforeAll(async () => {
  model = await startScriptedModelServer();
  gateway = await startTestGateway({ modelBaseUrl: model.baseUrl });
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await gateway.core.whenIdle();
  model.reset();
});

afterAll(async () => {
  await gateway?.dispose();
  await model?.close();
});

describe('one message end to end', () => {
  it('streams reply.start, several deltas and reply.end in order, stores the turn, and sends it as history next time', async () => {
    const client = await connect();
    // Apart in time, as a real model streams (events of one socket read reach the client joined).
    model.enqueue({ chunks: ['Lisbon ', 'is ', 'lovely ', 'in ', 'spring.'], chunkDelayMs: 5 });
    const first = await client.ask('trip', 'Where should I travel?');

    const types = first.events
      .map((event) => event.type)
      .filter((type) => type !== 'typing' && type !== 'status');
    expect(types[0]).toBe('reply.start');
    expect(types.at(-1)).toBe('reply.end');
    expect(types.filter((type) => type === 'reply.delta').length).toBeGreaterThanOrEqual(3);
    expect(first.text).toBe('Lisbon is lovely in spring.');
    const seqs = client.eventsOf('trip').map((entry) => entry.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);

    const second = await client.ask('trip', 'And in winter?');
    expect(second.text).toBe('Echo: And in winter?');
    const messages = (
      model.chatRequests()[1]?.body as { messages: { role: string; content: unknown }[] } | undefined
    )?.messages;
    const flat = JSON.stringify(messages);
    expect(flat).toContain('Where should I travel?');
    expect(flat).toContain('Lisbon is lovely in spring.');
    expect(messages?.at(-1)).toMatchObject({ role: 'user' });

    const store = createSqliteSessionStore({ path: join(gateway.config.dataDir, 'sessions.sqlite') });
    const history = await store.history({ conversationKey: 'web:trip', limit: 10 });
    await store.close();
    expect(history.map((turn) => turn.userText)).toEqual(['Where should I travel?', 'And in winter?']);
  });
});

describe('ordering and concurrency', () => {
  it('answers 50 messages in one conversation in order', async () => {
    const client = await connect();
    const replies = Array.from({ length: 50 }, (_, index) => client.ask('ordered', `message ${index}`));
    const answered = await Promise.all(replies);
    expect(answered.map((reply) => reply.text)).toEqual(
      Array.from({ length: 50 }, (_, index) => `Echo: message ${index}`),
    );
    const ends = client
      .eventsOf('ordered')
      .filter((entry) => entry.event.type === 'reply.end')
      .map((entry) => (entry.event.type === 'reply.end' ? entry.event.text : ''));
    expect(ends).toEqual(answered.map((reply) => reply.text));
  });

  it('runs 50 conversations at once', async () => {
    model.setLatency(150);
    const all = await Promise.all(Array.from({ length: 50 }, () => connect()));
    const replies = await Promise.all(all.map((client, index) => client.ask(`c${index}`, `hello ${index}`)));
    expect(replies.map((reply) => reply.text)).toEqual(all.map((_, index) => `Echo: hello ${index}`));
    // The model saw overlapping requests: conversations did not wait for each other.
    const spans = model
      .chatRequests()
      .map((request) => [request.receivedAt, request.finishedAt ?? Number.POSITIVE_INFINITY]);
    const maxOverlap = Math.max(
      ...spans.map(([start]) => spans.filter(([s, e]) => s! <= start! && start! < e!).length),
    );
    expect(maxOverlap).toBeGreaterThan(10);
  });
});

describe('de-duplication', () => {
  it('gives two intents with the same id one reply', async () => {
    const client = await connect();
    const first = await client.ask('dup', 'only once please', 'same-id');
    client.sendRaw(
      JSON.stringify({
        type: 'message',
        clientMessageId: 'same-id',
        conversationId: 'dup',
        text: 'only once please',
      }),
    );
    const accepted = await client.waitFor((frame) => frame.type === 'accepted' && frame.duplicate);
    expect(accepted).toMatchObject({ type: 'accepted', duplicate: true });
    await gateway.core.whenIdle();
    expect(first.text).toBe('Echo: only once please');
    expect(model.chatRequests()).toHaveLength(1);
    expect(client.eventsOf('dup').filter((entry) => entry.event.type === 'reply.end')).toHaveLength(1);
  });
});

describe('bad input', () => {
  it('answers 1,000 malformed frames with error frames or a 1009 close while other clients are served', async () => {
    const bystander = await connect();
    const attacker = await connect();
    const bad: (string | Buffer)[] = [];
    for (let index = 0; index < 1000; index += 1) {
      const kind = index % 4;
      if (kind === 0) bad.push(randomBytes(1 + (index % 64)));
      else if (kind === 1)
        bad.push(JSON.stringify({ type: 'message', clientMessageId: 7, conversationId: [], text: null }));
      else if (kind === 2) bad.push(JSON.stringify({ type: `nonsense-${index}` }));
      else bad.push('{"type":"message",');
    }
    const heapBefore = process.memoryUsage().heapUsed;
    for (const frame of bad) attacker.sendRaw(frame);
    const reply = await bystander.ask('calm', 'still there?');
    expect(reply.text).toBe('Echo: still there?');
    await attacker
      .waitFor(() => attacker.frames.filter((frame) => frame.type === 'error').length >= 900, 15_000)
      .catch(() => undefined);
    const errors = attacker.frames.filter((frame) => frame.type === 'error');
    expect(errors.length).toBeGreaterThan(0);
    for (const error of errors)
      expect(['bad_frame', 'unknown_frame', 'rate_limited']).toContain(error.type === 'error' && error.code);

    const big = await connect();
    big.sendRaw(Buffer.alloc(2 * 1024 * 1024, 'a'));
    expect((await big.whenClosed()).code).toBe(1009);
    expect((await bystander.ask('calm', 'and now?')).text).toBe('Echo: and now?');
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(64 * 1024 * 1024);
  });

  it('refuses a wrong token and a foreign origin at the upgrade', async () => {
    await expect(WebChatClient.connect({ url: gateway.url, token: 'x'.repeat(32) })).rejects.toThrow(/401/);
    const foreign = new WebSocket(`${gateway.url.replace('http', 'ws')}/ws`, {
      headers: { origin: 'https://evil.example', authorization: `Bearer ${gateway.token}` },
    });
    const status = await new Promise<number | undefined>((resolve) => {
      foreign.once('unexpected-response', (_request, response) => resolve(response.statusCode));
      foreign.once('open', () => resolve(101));
      foreign.once('error', () => resolve(undefined));
    });
    foreign.terminate();
    expect(status).toBe(403);
  });
});

describe('model provider errors', () => {
  it('turns a rejected API key into a short honest message, never a stack trace', async () => {
    const client = await connect();
    model.enqueue({
      status: 401,
      errorBody: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } },
    });
    const reply = await client.ask('oops', 'hello?');
    expect(reply.error?.code).toBe('model_rejected');
    expect(reply.error?.message).toMatch(/API key/);
    expect(reply.error?.message).not.toMatch(/at .*\.ts:\d+/);
  });
});

describe('HTTP endpoints', () => {
  it('serves health, readiness and Prometheus metrics', async () => {
    const client = await connect();
    await client.ask('metrics', 'count me');
    expect((await fetch(`${gateway.url}/health`)).status).toBe(200);
    const ready = await fetch(`${gateway.url}/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ ready: true });
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    expect(metrics).toMatch(/nexus_turns_total\{channel="web",outcome="ok",error_code=""\} \d+/);
    expect(metrics).toContain('nexus_web_connections');
    // Nothing is running now, so no turn waits for a slot.
    expect(metrics).toMatch(/^nexus_turns_waiting_for_slot 0$/m);
  });
});

describe('without a model provider', () => {
  it('starts, says how to configure one, and answers with that instead of failing', async () => {
    const bare = await startTestGateway();
    try {
      const client = await WebChatClient.connect({ url: bare.url, token: bare.token });
      const welcome = client.frames.find((frame) => frame.type === 'welcome');
      expect(welcome?.type === 'welcome' && welcome.notice).toMatch(/NEXUS_MODEL_PROVIDER/);
      const reply = await client.ask('setup', 'hi');
      expect(reply.text).toMatch(/NEXUS_MODEL_PROVIDER/);
      await client.close();
    } finally {
      await bare.dispose();
    }
  });
});

describe('with the model calls on a model thread (NEXUS_MODEL_THREADS=1)', () => {
  it('streams the reply, sends it as history next time, and names a rejected key as on the main thread', async () => {
    const threaded = await startTestGateway({
      modelBaseUrl: model.baseUrl,
      env: { NEXUS_MODEL_THREADS: '1' },
    });
    const client = await WebChatClient.connect({ url: threaded.url, token: threaded.token });
    try {
      model.enqueue({ chunks: ['Porto ', 'has ', 'bridges.'], chunkDelayMs: 5 });
      expect((await client.ask('threaded', 'Tell me about Porto')).text).toBe('Porto has bridges.');
      expect((await client.ask('threaded', 'And Braga?')).text).toBe('Echo: And Braga?');
      expect(JSON.stringify(model.chatRequests().at(-1)?.body)).toContain('Porto has bridges.');
      model.enqueue({ status: 401, errorBody: { error: { message: 'Incorrect API key provided' } } });
      const refused = await client.ask('threaded-key', 'hello?');
      expect(refused.error?.code).toBe('model_rejected');
    } finally {
      await client.close();
      await threaded.dispose();
    }
  });
});
