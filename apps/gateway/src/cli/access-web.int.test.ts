import { join } from 'node:path';
import { createSqliteMemoryStore, MemoryService } from '@nexus/memory';
import { type ScriptedModelServer, startScriptedModelServer } from '@nexus/testkit/llm';
import { WebChatClient } from '@nexus/testkit/web-chat';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway } from '../testing/test-gateway.ts';

type TestGateway = Awaited<ReturnType<typeof startTestGateway>>;

let model: ScriptedModelServer;
const gateways: TestGateway[] = [];
const clients: WebChatClient[] = [];

beforeAll(async () => {
  model = await startScriptedModelServer();
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(gateways.splice(0).map((gateway) => gateway.dispose()));
  model.reset();
});
afterAll(async () => {
  await model?.close();
});

async function gatewayWith(env: Record<string, string>): Promise<TestGateway> {
  const gateway = await startTestGateway({
    modelBaseUrl: model.baseUrl,
    // Only replies reach the model here, so its request log shows exactly who got through.
    env: { NEXUS_MEMORY_EXTRACTION: 'false', NEXUS_SESSION_SUMMARY_IDLE_MS: '0', ...env },
  });
  gateways.push(gateway);
  return gateway;
}

async function browser(gateway: TestGateway, clientId: string): Promise<WebChatClient> {
  const client = await WebChatClient.connect({ url: gateway.url, token: gateway.token, clientId });
  clients.push(client);
  return client;
}

function modelSaw(text: string): boolean {
  return model.chatRequests().some((request) => JSON.stringify(request.body).includes(text));
}

function codeIn(text: string | undefined): string {
  const code = /\*\*([A-Z0-9]{8})\*\*/.exec(text ?? '')?.[1];
  if (!code) throw new Error(`no code in: ${text}`);
  return code;
}

async function api(gateway: TestGateway, path: string, init: RequestInit = {}, token = gateway.token) {
  const response = await fetch(`${gateway.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('direct message policies on the web-socket channel', () => {
  it('pairing: a new browser gets a code, never reaches the model, and is let in once approved in the admin API', async () => {
    const gateway = await gatewayWith({ NEXUS_WEB_DM_POLICY: 'pairing' });
    const stranger = await browser(gateway, 'stranger-browser');
    const first = await stranger.ask('chat', 'secret question one');
    const code = codeIn(first.text);
    await expect(stranger.ask('chat', 'secret question two')).rejects.toThrow(/unauthorized/);
    expect(modelSaw('secret question')).toBe(false);
    expect(model.chatRequests()).toHaveLength(0);

    expect((await api(gateway, '/api/pairing', {}, 'wrong-token-0123456789')).status).toBe(401);
    const listed = await api(gateway, '/api/pairing');
    expect(listed.body.requests).toMatchObject([{ code, channel: 'web', platformId: 'stranger-browser' }]);
    const wrong = await api(gateway, '/api/pairing/approve', {
      method: 'POST',
      body: JSON.stringify({ code: 'ZZZZZZZZ' }),
    });
    expect(wrong).toMatchObject({ status: 404, body: { error: { code: 'unknown_code' } } });
    const approved = await api(gateway, '/api/pairing/approve', {
      method: 'POST',
      body: JSON.stringify({ code }),
    });
    expect(approved).toMatchObject({
      status: 200,
      body: { identity: { userId: 'web:stranger-browser', approved: true } },
    });

    const after = await stranger.ask('chat', 'question three');
    expect(after.text).toBe('Echo: question three');
    expect(modelSaw('secret question')).toBe(false);
  });

  it('allowlist: only listed browsers are answered; the rest are refused before the model', async () => {
    const gateway = await gatewayWith({
      NEXUS_WEB_DM_POLICY: 'allowlist',
      NEXUS_DM_ALLOWLIST: 'web:owner-laptop',
    });
    const owner = await browser(gateway, 'owner-laptop');
    expect((await owner.ask('chat', 'hi from the owner')).text).toBe('Echo: hi from the owner');
    const other = await browser(gateway, 'unknown-phone');
    await expect(other.ask('chat', 'let me in')).rejects.toThrow(/unauthorized/);
    expect(modelSaw('let me in')).toBe(false);
    expect((await api(gateway, '/api/pairing')).body.requests).toEqual([]);
  });

  it('open (the web default): every token holder is answered and becomes a person of its own', async () => {
    const gateway = await gatewayWith({});
    const laptop = await browser(gateway, 'laptop');
    expect((await laptop.ask('chat', 'hello')).text).toBe('Echo: hello');
    await gateway.close();
    const { openAccessStore } = await import('../composition/create-gateway-access.ts');
    const store = openAccessStore(gateway.config.dataDir);
    expect(store.identities.find({ channel: 'web', platformId: 'laptop' })).toMatchObject({
      userId: 'web:laptop',
    });
    store.close();
  });

  it('disabled: nobody is answered', async () => {
    const gateway = await gatewayWith({ NEXUS_WEB_DM_POLICY: 'disabled' });
    const laptop = await browser(gateway, 'laptop');
    await expect(laptop.ask('chat', 'anyone there?')).rejects.toThrow(/unauthorized.*turned off/);
    expect(model.chatRequests()).toHaveLength(0);
  });
});

describe('rate limit on the web-socket channel', () => {
  it('with NEXUS_RATE_LIMIT_WEB, a burst reaches the model only up to the limit; other browsers are unaffected', async () => {
    const gateway = await gatewayWith({
      NEXUS_RATE_LIMIT_WEB: 'true',
      NEXUS_RATE_LIMIT_BURST: '3',
      NEXUS_RATE_LIMIT_PER_MINUTE: '1',
    });
    const flooder = await browser(gateway, 'flooder');
    const replies = await Promise.all(
      Array.from({ length: 12 }, (_, index) => flooder.ask('chat', `burst ${index}`)),
    );
    expect(replies.slice(0, 3).map((reply) => reply.text)).toEqual([
      'Echo: burst 0',
      'Echo: burst 1',
      'Echo: burst 2',
    ]);
    expect(replies.slice(3).every((reply) => /faster than I can answer/.test(reply.text ?? ''))).toBe(true);
    const calm = await browser(gateway, 'calm');
    expect((await calm.ask('calm-chat', 'my turn')).text).toBe('Echo: my turn');
    expect(model.chatRequests()).toHaveLength(4);
  });
});

describe('commands on the web-socket channel', () => {
  it('/help, /new, /memories and /forget-me answer without the model; /forget-me spares other people', async () => {
    const gateway = await gatewayWith({});
    const ann = await browser(gateway, 'ann');
    const bob = await browser(gateway, 'bob');
    model.enqueue(
      {
        toolCalls: [
          { name: 'remember', arguments: { content: 'Ann prefers green tea', category: 'preference' } },
        ],
      },
      { text: 'Noted.' },
      { toolCalls: [{ name: 'remember', arguments: { content: 'Bob collects stamps', category: 'fact' } }] },
      { text: 'Noted too.' },
    );
    expect((await ann.ask('a', 'remember I like green tea')).text).toBe('Noted.');
    expect((await bob.ask('b', 'remember I collect stamps')).text).toBe('Noted too.');
    const calls = model.chatRequests().length;

    expect((await ann.ask('a', '/help')).text).toMatch(/\/memories: what I remember about you/);
    expect((await ann.ask('a', '/memories')).text).toMatch(/\d+\. Ann prefers green tea/);
    expect((await ann.ask('a', '/forget-me')).text).toMatch(/forget-me confirm/);
    expect((await ann.ask('a', '/forget-me confirm')).text).toMatch(/- memories: 1\n/);
    expect((await ann.ask('a', '/memories')).text).toMatch(/don't remember anything/);
    expect((await bob.ask('b', '/memories')).text).toMatch(/\d+\. Bob collects stamps/);
    expect((await ann.ask('a', '/new')).text).toMatch(/Started a new conversation/);
    expect(model.chatRequests()).toHaveLength(calls);

    // After /forget-me and /new, neither the memory nor the earlier turns reach the prompt.
    expect((await ann.ask('a', 'what do I drink?')).text).toBe('Echo: what do I drink?');
    const last = JSON.stringify(model.chatRequests().at(-1)?.body);
    expect(last).not.toContain('green tea');

    // In the memory store itself: Ann's memories and their session links are gone, Bob's are not.
    await gateway.close();
    const memory = new MemoryService({
      store: createSqliteMemoryStore({ path: join(gateway.config.dataDir, 'memory.sqlite') }),
    });
    expect(await memory.list({ userId: 'web:ann' })).toEqual([]);
    expect(await memory.sessionMemories({ sessionId: 'web:a' })).toEqual([]);
    expect((await memory.list({ userId: 'web:bob' })).map((item) => item.content)).toEqual([
      'Bob collects stamps',
    ]);
    expect((await memory.sessionMemories({ sessionId: 'web:b' })).map((item) => item.content)).toEqual([
      'Bob collects stamps',
    ]);
  });
});
