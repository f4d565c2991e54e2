import { connect } from 'node:net';
import { approximateTokenCounter } from '@nexus/limits-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryApi } from '../model/memory-api.ts';
import { MemoryInputError } from '../model/memory-errors.ts';
import type { MemoryStore } from '../model/memory-store.ts';
import { MemoryService } from '../service/memory-service.ts';
import { createSqliteMemoryStore } from '../sqlite/sqlite-memory-store.ts';
import { createMemoryClient } from './memory-http-client.ts';
import { type MemoryHttpServer, startMemoryHttpServer } from './memory-http-server.ts';

const API_KEY = 'test-key-0123456789';
const NOW = Date.UTC(2026, 3, 1);

function sequentialIds(): () => string {
  let next = 0;
  return () => `00000000-0000-4000-8000-${String(++next).padStart(12, '0')}`;
}

describe('memory HTTP API', () => {
  let store: MemoryStore;
  let service: MemoryService;
  let server: MemoryHttpServer;
  let seededId: string;

  beforeAll(async () => {
    store = createSqliteMemoryStore({ path: ':memory:' });
    service = new MemoryService({
      store,
      now: () => NOW,
      generateId: sequentialIds(),
      tokenCounter: approximateTokenCounter,
    });
    server = await startMemoryHttpServer({ service, apiKey: API_KEY, maxBodyBytes: 65_536 });
    seededId = (await service.add({ userId: 'ada', content: 'Prefers short answers', sessionId: 's1' }))
      .memory.id;
  });
  afterAll(async () => {
    await server.close();
    await store.close();
  });

  async function request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const response = await fetch(server.url + path, {
      method,
      headers: { 'x-api-key': API_KEY, 'content-type': 'application/json', ...headers },
      body: body === undefined ? null : typeof body === 'string' ? body : JSON.stringify(body),
    });
    return {
      status: response.status,
      body: (await response.json()) as { error?: { message: string; field?: string } },
    };
  }

  const snapshot = async () => ({
    stats: await service.stats(),
    memories: await service.list({ userId: 'ada' }),
  });

  it('answers bad input on every route with a 4xx that says what is wrong, and changes nothing', async () => {
    const before = await snapshot();
    const megabyte = 'x'.repeat(1_048_576);
    const cases: Array<[string, string, unknown, number, RegExp]> = [
      ['POST', '/add', { content: 'x' }, 400, /userId/],
      ['GET', '/standing-facts?userId=ada&limit=0', undefined, 400, /limit/],
      ['GET', '/standing-facts', undefined, 400, /userId/],
      ['POST', '/add', { userId: 'ada', content: megabyte }, 413, /exceeds 65536 bytes/],
      ['POST', '/add', { userId: 'ada', content: 'y'.repeat(5_000) }, 400, /content/],
      ['POST', '/add', { userId: 'ada', content: 42 }, 400, /content/],
      ['POST', '/add', { userId: 'ada', content: 'x', scope: 'planet' }, 400, /scope/],
      ['POST', '/add', '{not json', 400, /not valid JSON/],
      ['POST', '/add', '[1, 2]', 400, /JSON object/],
      ['POST', '/add', { userId: 'ada', content: 'x', createdAt: '2020-01-01' }, 400, /createdAt/],
      [
        'POST',
        '/add',
        { userId: 'ada', content: 'x', createdAt: Date.now() + 3 * 86_400_000 },
        400,
        /future/,
      ],
      ['POST', '/add', { userId: 'ada', content: 'x', createdAt: 2_000, updatedAt: 1_000 }, 400, /updatedAt/],
      ['POST', '/add', { userId: 'ada', content: 'x', id: 'not-a-uuid' }, 400, /id/],
      ['POST', '/search', { query: 'tea' }, 400, /userId/],
      ['POST', '/search', { userId: 'ada', query: 'tea', limit: 'ten' }, 400, /limit/],
      ['POST', '/context', { userId: 'ada', query: 'tea', tokenBudget: -5 }, 400, /tokenBudget/],
      ['POST', '/context', { query: 'tea' }, 400, /userId/],
      ['POST', '/context', { userId: 'ada', query: ['tea'] }, 400, /query/],
      ['GET', '/memories', undefined, 400, /userId/],
      ['GET', '/memories?userId=ada&limit=lots', undefined, 400, /limit/],
      ['GET', `/memories/${seededId}`, undefined, 400, /userId/],
      ['DELETE', `/memories/${seededId}`, undefined, 400, /userId/],
      ['DELETE', '/memories/not-a-uuid?userId=ada', undefined, 400, /id/],
      ['GET', '/sessions/s1/memories?userId=', undefined, 400, /userId/],
      ['GET', '/sessions/s1/memories', undefined, 400, /userId: required/],
      ['POST', '/reset', {}, 400, /userId/],
      ['POST', '/reset', { userId: 7 }, 400, /userId/],
      ['GET', '/stats?userId=', undefined, 400, /userId/],
      ['PUT', '/add', undefined, 405, /not allowed/],
      ['GET', '/nowhere', undefined, 404, /No route/],
    ];
    for (const [method, path, body, status, message] of cases) {
      const response = await request(method, path, body);
      expect({ method, path, status: response.status }).toEqual({ method, path, status });
      expect(response.body.error?.message).toMatch(message);
    }
    const field = await request('POST', '/context', { userId: 'ada', query: 'tea', tokenBudget: -5 });
    expect(field.body.error?.field).toBe('tokenBudget');
    const wrongType = await request(
      'POST',
      '/add',
      { userId: 'ada', content: 'x' },
      { 'content-type': 'text/plain' },
    );
    expect(wrongType.status).toBe(415);
    expect(await snapshot()).toEqual(before);
  });

  it('requires the right X-API-Key on every route but /health', async () => {
    const before = await snapshot();
    const routes: Array<[string, string, unknown]> = [
      ['POST', '/add', { userId: 'ada', content: 'Sneaky' }],
      ['POST', '/search', { userId: 'ada', query: 'answers' }],
      ['POST', '/context', { userId: 'ada', query: 'answers' }],
      ['GET', '/memories?userId=ada', undefined],
      ['GET', `/memories/${seededId}?userId=ada`, undefined],
      ['DELETE', `/memories/${seededId}?userId=ada`, undefined],
      ['GET', '/sessions/s1/memories', undefined],
      ['POST', '/reset', { userId: 'ada' }],
      ['GET', '/stats', undefined],
    ];
    for (const key of [undefined, '', 'wrong-key', `${API_KEY}x`]) {
      for (const [method, path, body] of routes) {
        const headers: Record<string, string> = key === undefined ? {} : { 'x-api-key': key };
        const response = await fetch(server.url + path, {
          method,
          headers: { 'content-type': 'application/json', ...headers },
          body: body === undefined ? null : JSON.stringify(body),
        });
        expect({ path, key, status: response.status }).toEqual({ path, key, status: 401 });
        expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(
          /X-API-Key/,
        );
      }
    }
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    expect(await snapshot()).toEqual(before);
  });

  it('answers odd request targets with 400 and malformed escapes in an id with 400', async () => {
    const { port } = new URL(server.url);
    const raw = (target: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect({ host: '127.0.0.1', port: Number(port) });
        let text = '';
        socket.setEncoding('utf8');
        socket.on('data', (chunk: string) => {
          text += chunk;
        });
        socket.on('error', reject);
        socket.on('close', () => resolve(text));
        socket.write(
          `GET ${target} HTTP/1.1\r\nHost: x\r\nX-API-Key: ${API_KEY}\r\nConnection: close\r\n\r\n`,
        );
      });
    // `new URL('//', base)` threw on these; they were 500s before.
    expect(await raw('//')).toMatch(/^HTTP\/1\.1 404 /);
    expect(await raw('http://[::1/')).toMatch(/^HTTP\/1\.1 400 /);
    expect(await raw('*')).toMatch(/^HTTP\/1\.1 400 /);
    expect(await raw('/memories/%E0%A4%A?userId=u')).toMatch(/^HTTP\/1\.1 400 /);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
  });

  it('the client has the in-process interface and gives the same answers', async () => {
    const remoteStore = createSqliteMemoryStore({ path: ':memory:' });
    const localStore = createSqliteMemoryStore({ path: ':memory:' });
    const options = { now: () => NOW, tokenCounter: approximateTokenCounter };
    const remoteService = new MemoryService({ store: remoteStore, generateId: sequentialIds(), ...options });
    const remoteServer = await startMemoryHttpServer({ service: remoteService, apiKey: API_KEY });
    try {
      const client: MemoryApi = createMemoryClient({ baseUrl: remoteServer.url, apiKey: API_KEY });
      const local: MemoryApi = new MemoryService({
        store: localStore,
        generateId: sequentialIds(),
        ...options,
      });
      const run = async (api: MemoryApi) => {
        const added = await api.add({
          userId: 'ada',
          content: 'Prefers tea',
          category: 'preference',
          sessionId: 's1',
        });
        const duplicate = await api.add({ userId: 'ada', content: 'prefers tea.' });
        await api.add({ userId: 'ada', content: 'Lives in Lisbon' });
        await api.add({ scope: 'global', content: 'The assistant is called Nexus' });
        const context = await api.context({ userId: 'ada', query: 'tea Lisbon Nexus', sessionId: 's1' });
        return {
          added,
          duplicate,
          search: await api.search({ userId: 'ada', query: 'tea' }),
          context: { ...context, durationMs: 0, scopes: Object.keys(context.scopes) },
          list: await api.list({ userId: 'ada', limit: 10 }),
          standing: await api.standingFacts({ userId: 'ada', limit: 5 }),
          get: await api.get({ userId: 'ada', id: added.memory.id }),
          missing: await api.get({ userId: 'bob', id: added.memory.id }),
          updated: await api.update({
            userId: 'ada',
            id: added.memory.id,
            content: 'Prefers green tea',
            category: 'fact',
          }),
          updatedElsewhere: await api.update({ userId: 'bob', id: added.memory.id, content: 'Bob was here' }),
          session: await api.sessionMemories({ sessionId: 's1', userId: 'ada' }),
          sessionOfBob: await api.sessionMemories({ sessionId: 's1', userId: 'bob' }),
          stats: await api.stats(),
          deleted: await api.delete({ userId: 'ada', id: added.memory.id }),
          reset: await api.reset({ userId: 'ada' }),
          health: await api.health(),
        };
      };
      const remote = await run(client);
      expect(remote).toEqual(await run(local));
      // The stated preference outranks the inferred fact of the same age.
      expect(remote.standing.map((memory) => memory.content)).toEqual(['Prefers tea', 'Lives in Lisbon']);
      expect(remote.updated).toMatchObject({
        id: remote.added.memory.id,
        createdAt: remote.added.memory.createdAt,
      });
      expect(remote.updatedElsewhere).toBeUndefined();
      // Ada's memory is bound to s1, and Bob, in the same session, does not get it.
      expect(remote.session.map((memory) => memory.userId)).toEqual(['ada']);
      expect(remote.sessionOfBob).toEqual([]);
      const error = await client.add({ userId: 'ada', content: '' }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(MemoryInputError);
      expect((error as MemoryInputError).field).toBe('content');
    } finally {
      await remoteServer.close();
      await remoteStore.close();
      await localStore.close();
    }
  });

  it('keeps the id and times an import gives, finds the memory again by id, and stores global memories', async () => {
    const id = '7d7c4a52-3a0c-4b7e-9d0e-2f5a3c1b9e01';
    const createdAt = Date.UTC(2024, 0, 15, 9, 30);
    const updatedAt = Date.UTC(2024, 5, 1);
    const imported = {
      userId: 'grace',
      content: 'Keeps bees',
      id,
      createdAt,
      updatedAt,
      source: 'user_explicit',
    };
    const first = await request('POST', '/add', imported);
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ action: 'inserted', memory: { id, createdAt, updatedAt } });
    // Re-imported after an edit elsewhere: the id finds it, nothing is added twice.
    const again = await request('POST', '/add', { ...imported, content: 'Keeps three hives of bees' });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ action: 'unchanged', memory: { id, content: 'Keeps bees' } });
    expect(await service.list({ userId: 'grace' })).toHaveLength(1);
    // The same id for another person: refused, grace's memory untouched.
    const taken = await request('POST', '/add', { userId: 'henry', content: 'Keeps wasps', id });
    expect(taken.status).toBe(400);
    expect(taken.body.error).toMatchObject({ field: 'id' });
    expect(await service.list({ userId: 'henry' })).toEqual([]);
    expect(await service.get({ userId: 'grace', id })).toMatchObject({ content: 'Keeps bees' });
    // Only createdAt: the memory was last updated then too.
    const dated = await request('POST', '/add', { userId: 'grace', content: 'Born in Leeds', createdAt });
    expect(dated.body).toMatchObject({ memory: { createdAt, updatedAt: createdAt } });

    const global = await request('POST', '/add', {
      scope: 'global',
      content: 'The assistant is called Nexus',
    });
    expect(global.status).toBe(201);
    expect(global.body).toMatchObject({ memory: { userId: '*', scope: 'global' } });
    const listed = await request('GET', '/memories?userId=*');
    expect(
      (listed.body as unknown as { memories: Array<{ content: string }> }).memories.map((m) => m.content),
    ).toEqual(['The assistant is called Nexus']);
  });
});

describe('a memory HTTP server without a key', () => {
  it('refuses to listen beyond loopback, and on loopback answers only loopback Host names', async () => {
    const store = createSqliteMemoryStore({ path: ':memory:' });
    const service = new MemoryService({ store, tokenCounter: approximateTokenCounter });
    try {
      await expect(
        startMemoryHttpServer({ service, apiKey: undefined, host: '0.0.0.0' }),
      ).rejects.toMatchObject({
        code: 'invalid_config',
      });
      const server = await startMemoryHttpServer({ service, apiKey: undefined });
      try {
        const port = new URL(server.url).port;
        const rawStatus = (host: string) =>
          new Promise<string>((resolve, reject) => {
            const socket = connect(Number(port), '127.0.0.1', () =>
              socket.write(`GET /stats HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`),
            );
            let text = '';
            socket.on('data', (chunk) => {
              text += chunk.toString('latin1');
            });
            socket.on('end', () => resolve(text.split(' ')[1] ?? ''));
            socket.on('error', reject);
          });
        expect(await rawStatus(`127.0.0.1:${port}`)).toBe('200');
        expect(await rawStatus(`localhost:${port}`)).toBe('200');
        expect(await rawStatus(`evil.example:${port}`)).toBe('403');
      } finally {
        await server.close();
      }
    } finally {
      await store.close();
    }
  });
});
