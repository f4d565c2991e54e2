import { Writable } from 'node:stream';
import { approximateTokenCounter } from '@nexus/core';
import {
  createSqliteMemoryStore,
  type Embedder,
  type MemoryApi,
  MemoryService,
  startMemoryHttpServer,
} from '@nexus/memory';
import { APICallError } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from './create-logger.ts';

interface ErrorLine {
  msg: string;
  err?: { type: string; message: string; stack: string; [field: string]: unknown };
  error?: unknown;
}

/** The real gateway logger writing JSON lines into memory. */
function capturedLogger() {
  const lines: ErrorLine[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: createLogger({ level: 'debug', pretty: false }, destination), lines };
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describe('error logging through the gateway logger', () => {
  it("prints an error's type, message, stack and cause under `err`", () => {
    const { logger, lines } = capturedLogger();
    const cause = new Error('socket hang up');
    logger.error({ err: new Error('could not store the turn', { cause }) }, 'turn failed');
    const err = lines[0]?.err;
    expect(err?.type).toBe('Error');
    expect(err?.message).toContain('could not store the turn');
    expect(err?.stack).toContain('could not store the turn');
    expect(err?.stack).toContain('create-logger.int.test.ts');
    expect(JSON.stringify(err)).toContain('socket hang up');
  });

  it("keeps a model error's status and url but never the prompt, the answer or headers", () => {
    const { logger, lines } = capturedLogger();
    const failure = new APICallError({
      message: 'Too Many Requests',
      url: 'http://model.local/v1/chat/completions',
      requestBodyValues: { messages: [{ role: 'user', content: 'my secret diary' }] },
      statusCode: 429,
      responseHeaders: { 'x-api-key-echo': 'sk-leaked' },
      responseBody: '{"error":"my secret diary"}',
    });
    logger.warn({ err: failure }, 'turn failed');
    const line = JSON.stringify(lines[0]);
    expect(lines[0]?.err?.message).toBe('Too Many Requests');
    expect(lines[0]?.err?.statusCode).toBe(429);
    expect(lines[0]?.err?.url).toBe('http://model.local/v1/chat/completions');
    expect(line).not.toContain('my secret diary');
    expect(line).not.toContain('sk-leaked');
  });

  it("logs the memory service's failed query embedding with its message and stack", async () => {
    const { logger, lines } = capturedLogger();
    const store = createSqliteMemoryStore({
      path: ':memory:',
      vectors: { embedderId: 'failing', dimensions: 4 },
    });
    closers.push(() => store.close());
    const embedder: Embedder = {
      id: 'failing',
      dimensions: 4,
      embed: async () => {
        throw new Error('embedder offline');
      },
    };
    const service = new MemoryService({ store, embedder, logger, tokenCounter: approximateTokenCounter });
    await service.context({ userId: 'ada', query: 'what do I like?', tokenBudget: 200 });
    const line = lines.find((entry) => entry.msg.includes('embedding the query failed'));
    expect(line?.err?.message).toBe('embedder offline');
    expect(line?.err?.stack).toContain('embedder offline');
    expect(line?.error).toBeUndefined();
  });

  it("logs the memory HTTP service's 500 with the error's message and stack", async () => {
    const { logger, lines } = capturedLogger();
    const store = createSqliteMemoryStore({ path: ':memory:' });
    closers.push(() => store.close());
    const real = new MemoryService({ store, tokenCounter: approximateTokenCounter });
    // The real service, except that search hits a bug the handler has no answer for.
    const service = new Proxy(real, {
      get(target, key) {
        if (key === 'search')
          return async () => {
            throw new TypeError('ranking exploded');
          };
        const value = Reflect.get(target, key, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }) as MemoryApi;
    const server = await startMemoryHttpServer({ service, apiKey: 'key-0123456789abcdef', logger });
    closers.push(() => server.close());
    const response = await fetch(`${server.url}/search`, {
      method: 'POST',
      headers: { 'x-api-key': 'key-0123456789abcdef', 'content-type': 'application/json' },
      body: JSON.stringify({ userId: 'ada', query: 'anything' }),
    });
    expect(response.status).toBe(500);
    const line = lines.find((entry) => entry.msg === 'memory http: request failed');
    expect(line?.err?.type).toBe('TypeError');
    expect(line?.err?.message).toBe('ranking exploded');
    expect(line?.err?.stack).toContain('ranking exploded');
  });
});

describe('child loggers of the gateway logger', () => {
  it('write their bindings, nested, pseudonymised, once they log; a child that writes nothing costs no pseudonym', () => {
    const lines: Array<Record<string, unknown>> = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const pseudonymised: unknown[] = [];
    const logger = createLogger({ level: 'info', pretty: false }, destination, (value) => {
      pseudonymised.push(value);
      return `id:${String(value).length}`;
    });
    const bindings = { conversationId: 'web:c1', component: 'turn' };
    const turn = logger.child(bindings);
    const step = turn.child({ intentId: 'i-7' });
    // Below the level: nothing written, no child made, nothing pseudonymised.
    step.debug({ detail: 1 }, 'quiet');
    expect(lines).toEqual([]);
    expect(pseudonymised).toEqual([]);
    // What was bound when the child was made counts, not a later change to the object.
    bindings.component = 'changed';
    step.warn({ userId: 'web:user1' }, 'slow step');
    step.info({ n: 2 });
    turn.error({}, 'failed');
    expect(lines.map(({ time: _time, pid: _pid, hostname: _hostname, ...line }) => line)).toEqual([
      {
        level: 40,
        service: 'nexus',
        conversationId: 'id:6',
        component: 'turn',
        intentId: 'id:3',
        userId: 'id:9',
        msg: 'slow step',
      },
      { level: 30, service: 'nexus', conversationId: 'id:6', component: 'turn', intentId: 'id:3', n: 2 },
      { level: 50, service: 'nexus', conversationId: 'id:6', component: 'turn', msg: 'failed' },
    ]);
    // Each child's bindings were pseudonymised once, when it first wrote.
    expect(pseudonymised.filter((value) => value === 'web:c1')).toHaveLength(1);
    expect(pseudonymised.filter((value) => value === 'i-7')).toHaveLength(1);
  });
});
