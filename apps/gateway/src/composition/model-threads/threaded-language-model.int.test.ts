import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAgent, toModelError } from '@nexus/core';
import { type ScriptedModelServer, startScriptedModelServer } from '@nexus/testkit/llm';
import { APICallError, generateText, type LanguageModel, tool } from 'ai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createProviderModel } from '../create-provider-model.ts';
import { createModelFetch } from '../model-fetch.ts';
import { ModelThreadPool } from './model-thread-pool.ts';
import type { ModelSpec } from './thread-messages.ts';
import { createThreadedLanguageModel } from './threaded-language-model.ts';

// The model's calls on a worker thread, through the real AI SDK (core's agent, generateText)
// against the scripted model server: each case runs the provider's model object on this thread
// and the threaded one side by side and expects the same outcome.

let server: ScriptedModelServer;
let pool: ModelThreadPool;

beforeAll(async () => {
  server = await startScriptedModelServer();
  pool = new ModelThreadPool({ threads: 1 });
});
afterEach(() => server.reset());
afterAll(async () => {
  await pool.close();
  await server.close();
});

async function bothModels(
  spec: Partial<ModelSpec> = {},
): Promise<Record<'direct' | 'threaded', LanguageModel>> {
  const full: ModelSpec = {
    provider: 'openai-compatible',
    baseUrl: server.baseUrl,
    name: 'scripted-model',
    ...spec,
  };
  // The gateway gives the provider model on this thread the same kind of client a thread has.
  const direct = (await createProviderModel(full, { fetch: createModelFetch() }))!;
  return { direct, threaded: createThreadedLanguageModel(pool, full) };
}

/** One agent run to its end: the text deltas, the finish part, or what it threw. */
async function run(model: LanguageModel, options: { abort?: AbortController; timeoutMs?: number } = {}) {
  const agent = createAgent({
    model,
    tools: {
      lookup: tool({
        inputSchema: z.object({ query: z.string() }),
        execute: async ({ query }) => `found ${query}`,
      }),
    },
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
  });
  const deltas: string[] = [];
  try {
    for await (const part of agent.run({
      history: [],
      userText: 'hello there',
      ...(options.abort ? { abortSignal: options.abort.signal } : {}),
    })) {
      if (part.type === 'text-delta') {
        deltas.push(part.text);
        if (deltas.length === 1) options.abort?.abort(new Error('stopped by the person'));
      }
      if (part.type === 'finish') return { deltas, finish: part };
    }
    return { deltas };
  } catch (error) {
    return { deltas, error };
  }
}

/** What a test compares of an error: its class as the SDK tells it, its fields, its cause's. */
function describeError(error: unknown) {
  const e = error as Error & { statusCode?: number; isRetryable?: boolean; responseBody?: string };
  return {
    name: e.name,
    message: e.message,
    apiCallError: APICallError.isInstance(e),
    statusCode: e.statusCode,
    isRetryable: e.isRetryable,
    responseBody: e.responseBody,
    cause: e.cause instanceof Error ? { name: e.cause.name, message: e.cause.message } : e.cause,
    nexus: toModelError(error, { shuttingDown: false }).code,
  };
}

async function untilSettled(check: () => boolean): Promise<void> {
  for (let waited = 0; !check() && waited < 5_000; waited += 20) await new Promise((r) => setTimeout(r, 20));
}

describe('a model on a model thread, through the AI SDK', () => {
  it('streams the same reply, usage and finish as the provider model on this thread', async () => {
    const { direct, threaded } = await bothModels();
    const here = await run(direct);
    const there = await run(threaded);
    expect(there.finish?.text).toBe('Echo: hello there');
    expect(there.deltas.length).toBeGreaterThan(1);
    expect(there).toEqual(here);
    expect(there.finish?.usage?.totalTokens).toBeGreaterThan(0);
  });

  it('runs tool calls over several steps, the tool result going back to the model', async () => {
    const { direct, threaded } = await bothModels();
    const outcomes = [];
    for (const model of [direct, threaded]) {
      server.enqueue(
        { toolCalls: [{ name: 'lookup', arguments: { query: 'tea' } }] },
        { text: 'Tea it is.' },
      );
      outcomes.push(await run(model));
      const second = server.chatRequests().at(-1)!.body as { messages: { role: string; content: unknown }[] };
      expect(second.messages.at(-1)).toMatchObject({ role: 'tool' });
      expect(JSON.stringify(second.messages.at(-1)!.content)).toContain('found tea');
    }
    expect(outcomes[1]!.finish?.text).toBe('Tea it is.');
    expect(outcomes[1]).toEqual(outcomes[0]);
  });

  it('answers a non-streamed call (generateText) the same', async () => {
    const { direct, threaded } = await bothModels();
    const [here, there] = await Promise.all(
      [direct, threaded].map((model) => generateText({ model, prompt: 'non-streamed' })),
    );
    expect(there!.text).toBe('Echo: non-streamed');
    expect(there!.usage).toEqual(here!.usage);
    expect(there!.finishReason).toBe(here!.finishReason);
  });

  it('aborts the HTTP request when the caller aborts mid-stream, failing with the abort reason', async () => {
    const { direct, threaded } = await bothModels();
    const outcomes = [];
    for (const model of [direct, threaded]) {
      server.enqueue({ text: 'one two three four five six seven eight', chunkDelayMs: 100 });
      const abort = new AbortController();
      outcomes.push(await run(model, { abort }));
      expect(outcomes.at(-1)!.error).toBe(abort.signal.reason);
      const request = server.chatRequests().at(-1)!;
      await untilSettled(() => request.finishedAt !== undefined);
      expect(request.abortedByClient).toBe(true);
    }
    expect(outcomes[1]!.deltas).toEqual(outcomes[0]!.deltas);
  });

  it('fails a run that exceeds its time as TimeoutError, and the server sees the request end', async () => {
    const { direct, threaded } = await bothModels();
    const errors = [];
    for (const model of [direct, threaded]) {
      server.enqueue({ hang: true });
      errors.push(describeError((await run(model, { timeoutMs: 300 })).error));
      const request = server.chatRequests().at(-1)!;
      await untilSettled(() => request.finishedAt !== undefined);
      expect(request.abortedByClient).toBe(true);
    }
    expect(errors[1]).toMatchObject({ name: 'TimeoutError', nexus: 'model_timeout' });
    expect(errors[1]).toEqual(errors[0]);
  });

  it('fails on a wrong API key with the same APICallError (status, body, not retried)', async () => {
    const keyed = await startScriptedModelServer({ apiKey: 'the-right-key' });
    try {
      const { direct, threaded } = await bothModels({ baseUrl: keyed.baseUrl, apiKey: 'a-wrong-key' });
      const here = describeError((await run(direct)).error);
      const there = describeError((await run(threaded)).error);
      expect(there).toMatchObject({
        apiCallError: true,
        statusCode: 401,
        isRetryable: false,
        nexus: 'model_rejected',
      });
      expect(there.responseBody).toContain('Incorrect API key provided.');
      expect(there).toEqual(here);
      expect(keyed.chatRequests()).toHaveLength(2);
    } finally {
      await keyed.close();
    }
  });

  it('retries a 503 as before and then answers', async () => {
    const { threaded } = await bothModels();
    server.enqueue({ status: 503 }, { text: 'back again' });
    expect((await run(threaded)).finish?.text).toBe('back again');
    expect(server.chatRequests()).toHaveLength(2);
  });

  it('fails a stream the server cuts short with the same error after the same text', async () => {
    const { direct, threaded } = await bothModels();
    const outcomes = [];
    for (const model of [direct, threaded]) {
      server.enqueue({ text: 'partial answer here', dropConnection: true });
      const outcome = await run(model);
      outcomes.push({ deltas: outcome.deltas, error: describeError(outcome.error) });
    }
    expect(outcomes[1]!.deltas.join('')).toBe('partial answer here');
    expect(outcomes[1]).toEqual(outcomes[0]);
  });
});

describe('a model answering what is not JSON', () => {
  let raw: Server;
  let baseUrl: string;
  beforeAll(async () => {
    // A provider stand-in that streams an event that is not JSON, and answers a plain call with a body that is not.
    raw = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        if (!(JSON.parse(body) as { stream?: boolean }).stream) {
          response.writeHead(200, { 'content-type': 'application/json' }).end('this is not json');
          return;
        }
        const chunk = (content: string, finish: string | null) =>
          `data: ${JSON.stringify({ id: 'c', created: 1, model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: finish }] })}\n\n`;
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.end(`${chunk('before ', null)}data: {not json\n\n${chunk('after', 'stop')}data: [DONE]\n\n`);
      });
    });
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(raw.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => new Promise<void>((resolve) => raw.close(() => resolve())));

  it('fails a streamed run with the same parse error', async () => {
    const { direct, threaded } = await bothModels({ baseUrl });
    const here = await run(direct);
    const there = await run(threaded);
    expect(there.error).toBeInstanceOf(Error);
    expect({ ...there, error: describeError(there.error) }).toEqual({
      ...here,
      error: describeError(here.error),
    });
  });

  it('fails a non-streamed call with the same error', async () => {
    const { direct, threaded } = await bothModels({ baseUrl });
    const [here, there] = await Promise.all(
      [direct, threaded].map((model) =>
        generateText({ model, prompt: 'x', maxRetries: 0 }).then(
          () => undefined,
          (error: unknown) => describeError(error),
        ),
      ),
    );
    expect(there).toBeDefined();
    expect(there).toEqual(here);
  });
});

describe('a model thread that dies', () => {
  it('fails its calls in flight at once with a clear error, and a new thread takes the next call', async () => {
    const own = new ModelThreadPool({ threads: 1 });
    try {
      const model = createThreadedLanguageModel(own, {
        provider: 'openai-compatible',
        baseUrl: server.baseUrl,
        name: 'scripted-model',
      });
      server.enqueue({ text: 'a long answer that the thread will never finish', chunkDelayMs: 200 });
      const dying = own.workers()[0]!;
      const agent = createAgent({ model });
      const started = Date.now();
      const deltas: string[] = [];
      const failure = await (async () => {
        for await (const part of agent.run({ history: [], userText: 'hi' })) {
          if (part.type !== 'text-delta') continue;
          deltas.push(part.text);
          if (deltas.length === 1) void dying.terminate();
        }
      })().then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toMatchObject({ name: 'ModelThreadError' });
      expect((failure as Error).message).toMatch(/model thread stopped .* while this call was in flight/);
      expect(toModelError(failure, { shuttingDown: false }).code).toBe('internal');
      expect(Date.now() - started).toBeLessThan(3_000);
      const again = await run(model);
      expect(again.finish?.text).toBe('Echo: hello there');
      expect(own.workers()).toHaveLength(1);
      expect(own.workers()[0]).not.toBe(dying);
    } finally {
      await own.close();
    }
  });
});

describe('the threaded model object', () => {
  it('reports the provider id and supported URLs of the provider model it stands for', async () => {
    for (const provider of ['openai-compatible', 'openai', 'anthropic'] as const) {
      const spec: ModelSpec = { provider, baseUrl: server.baseUrl, apiKey: 'key', name: 'some-model' };
      const direct = (await createProviderModel(spec)) as Exclude<LanguageModel, string>;
      const threaded = createThreadedLanguageModel(pool, spec);
      expect(threaded.provider).toBe(direct.provider);
      expect(threaded.modelId).toBe(direct.modelId);
      expect(String(Object.entries(await threaded.supportedUrls))).toBe(
        String(Object.entries(await direct.supportedUrls)),
      );
    }
  });
});
