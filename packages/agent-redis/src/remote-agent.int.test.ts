import { randomBytes } from 'node:crypto';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { type AgentPart, createAgent } from '@nexus/core';
import { type ActiveJob, type JobQueue, NexusError, silentLogger } from '@nexus/protocol';
import { createBullMqJobQueue } from '@nexus/queue-bullmq';
import { type ScriptedModelServer, startScriptedModelServer } from '@nexus/testkit/llm';
import { makePng } from '@nexus/testkit/media';
import { tool } from 'ai';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type AgentRunGateway, startAgentRunGateway } from './agent-run-gateway.ts';
import { type AgentRunPayload, agentRunKeys, type RunMessage } from './agent-run-protocol.ts';
import { type AgentRunWorkerHost, startAgentRunWorkerHost } from './agent-run-worker-host.ts';
import { sendToInbox } from './stream-inbox.ts';

// The gateway side against a hand-driven worker (crafted run messages in the real Redis inbox),
// then against the real worker host with a real agent calling a tool that runs on the gateway.

const REDIS_URL = 'redis://127.0.0.1:6379';
const prefix = `nexus-test-${randomBytes(4).toString('hex')}`;
const keys = agentRunKeys(prefix);

let redis: Redis;
let model: ScriptedModelServer;
const opened: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  model = await startScriptedModelServer();
});
afterEach(async () => {
  for (const resource of opened.splice(0).reverse()) await resource.close();
});
afterAll(async () => {
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    if (found.length > 0) await redis.del(...found);
  } while (cursor !== '0');
  redis.disconnect();
  await model.close();
});

function openQueue(): JobQueue {
  const queue = createBullMqJobQueue({
    connection: { url: REDIS_URL },
    prefix,
    lockDurationMs: 2000,
    stalledIntervalMs: 1000,
  });
  opened.push({ close: () => queue.close({ timeoutMs: 0 }) });
  return queue;
}

async function openGateway(
  queue: JobQueue,
  timeoutMs = 10_000,
  probeEveryMs?: number,
): Promise<AgentRunGateway> {
  const gateway = await startAgentRunGateway({
    redisUrl: REDIS_URL,
    prefix,
    queue,
    configured: true,
    timeoutMs,
    ...(probeEveryMs !== undefined ? { probeEveryMs } : {}),
    logger: silentLogger,
  });
  opened.push(gateway);
  return gateway;
}

/** A stand-in worker: hands each job's payload to the test, which then writes run messages. */
function takeJobs(queue: JobQueue): () => Promise<AgentRunPayload> {
  const jobs: ActiveJob[] = [];
  const waiting: ((job: ActiveJob) => void)[] = [];
  const processor = queue.process({
    name: 'agent.run',
    concurrency: 4,
    handler: async (job) => {
      const waiter = waiting.shift();
      if (waiter) waiter(job);
      else jobs.push(job);
    },
  });
  opened.push({ close: () => processor.stop({ timeoutMs: 0 }) });
  return async () => {
    const job = jobs.shift() ?? (await new Promise<ActiveJob>((resolve) => waiting.push(resolve)));
    return job.payload as AgentRunPayload;
  };
}

async function collect(parts: AsyncIterable<AgentPart>): Promise<AgentPart[]> {
  const collected: AgentPart[] = [];
  for await (const part of parts) collected.push(part);
  return collected;
}

type Body = Omit<RunMessage, 'turnId' | 'runId' | 'seq'>;
function writer(payload: AgentRunPayload, runId: string) {
  return (seq: number, body: Record<string, unknown>) =>
    sendToInbox(redis, payload.replyTo, { turnId: payload.turnId, runId, seq, ...(body as Body) });
}

async function readInbox(key: string): Promise<unknown[]> {
  const entries = await redis.xrange(key, '-', '+');
  return entries
    .map(([, fields]) => JSON.parse(fields[1] ?? 'null'))
    .filter((message) => message.kind !== 'open');
}

describe('remote agent (gateway side)', () => {
  it('follows the newest run, drops duplicates and stale runs, and does not repeat text already shown', async () => {
    const queue = openQueue();
    const nextJob = takeJobs(queue);
    const gateway = await openGateway(queue);
    const parts = collect(gateway.agent.run({ history: [], userText: 'hello' }));
    const payload = await nextJob();
    expect(payload).toMatchObject({ v: 1, userText: 'hello', history: [], tools: [] });

    const workerA = `${prefix}:test-worker-a`;
    const runA = writer(payload, 'run-a');
    await runA(0, { kind: 'start', attempt: 1, replyTo: workerA });
    await runA(1, { kind: 'delta', text: 'Hel' });
    await runA(1, { kind: 'delta', text: 'Hel' }); // redelivered: applied once
    const runB = writer(payload, 'run-b');
    await runB(0, { kind: 'start', attempt: 2, replyTo: `${prefix}:test-worker-b` });
    await runA(2, { kind: 'delta', text: 'XX' }); // the superseded run keeps talking
    await runB(1, { kind: 'delta', text: 'He' });
    await runB(2, { kind: 'delta', text: 'llo' });
    await runB(3, { kind: 'finish', text: 'Hello' });

    expect(await parts).toEqual([
      { type: 'text-delta', text: 'Hel' },
      { type: 'text-delta', text: 'lo' },
      { type: 'finish', text: 'Hello' },
    ]);
    expect(await readInbox(workerA)).toEqual([{ runId: 'run-a', kind: 'cancel' }]);
  });

  it('sends images as references and answers a run’s requests for this turn’s images only', async () => {
    const queue = openQueue();
    const nextJob = takeJobs(queue);
    const gateway = await openGateway(queue);
    const photo = new Uint8Array(randomBytes(300_000));
    const parts = collect(
      gateway.agent.run({
        history: [],
        userText: 'what is this?',
        userImages: [{ bytes: photo, mediaType: 'image/jpeg' }],
      }),
    );
    const payload = await nextJob();
    expect(payload.userImages).toEqual([{ ref: 'image-0', mediaType: 'image/jpeg', byteLength: 300_000 }]);
    expect(JSON.stringify(payload).length).toBeLessThan(2_000);

    const workerInbox = `${prefix}:test-worker-images`;
    const run = writer(payload, 'run-images');
    await run(0, { kind: 'start', attempt: 1, replyTo: workerInbox });
    await run(1, { kind: 'media-request', ref: 'image-0' });
    await run(2, { kind: 'media-request', ref: 'image-1' });
    await expect.poll(async () => (await readInbox(workerInbox)).length).toBe(2);
    const [bytes, missing] = (await readInbox(workerInbox)) as Record<string, string>[];
    expect(bytes).toMatchObject({
      runId: 'run-images',
      kind: 'media-bytes',
      ref: 'image-0',
      mediaType: 'image/jpeg',
    });
    expect(Buffer.from(bytes?.base64 ?? '', 'base64').equals(photo)).toBe(true);
    expect(missing).toMatchObject({ kind: 'media-error', ref: 'image-1' });
    await run(3, { kind: 'finish', text: 'a photo' });
    expect(await parts).toEqual([{ type: 'finish', text: 'a photo' }]);
  });

  it('sends a run again when Redis lost its job (evicted, or restarted without persistence)', async () => {
    const queue = openQueue();
    const gateway = await openGateway(queue, 10_000, 200);
    const parts = collect(gateway.agent.run({ history: [], userText: 'lost on the way' }));
    await expect.poll(async () => (await queue.counts({ name: 'agent.run' })).waiting).toBe(1);
    // The job vanishes from Redis before any worker took it.
    expect((await queue.purgePayloads?.({ values: ['lost on the way'] }))?.removed).toBe(1);
    const nextJob = takeJobs(queue);
    const payload = await nextJob();
    expect(payload.userText).toBe('lost on the way');
    const run = writer(payload, 'run-again');
    await run(0, { kind: 'start', attempt: 1, replyTo: `${prefix}:test-worker-again` });
    await run(1, { kind: 'delta', text: 'found' });
    await run(2, { kind: 'finish', text: 'found' });
    expect(await parts).toEqual([
      { type: 'text-delta', text: 'found' },
      { type: 'finish', text: 'found' },
    ]);
  });

  it('turns an error message into the NexusError the worker reported', async () => {
    const queue = openQueue();
    const nextJob = takeJobs(queue);
    const gateway = await openGateway(queue);
    const failed = collect(gateway.agent.run({ history: [], userText: 'fail please' })).catch(
      (error: unknown) => error,
    );
    const payload = await nextJob();
    const run = writer(payload, 'run-1');
    await run(0, { kind: 'start', attempt: 1, replyTo: `${prefix}:test-worker` });
    await run(1, { kind: 'error', code: 'model_rejected', message: 'no', retryable: false });
    const failure = await failed;
    expect(failure).toBeInstanceOf(NexusError);
    expect(failure).toMatchObject({ code: 'model_rejected', retryable: false });
  });

  it('on abort, cancels the running worker and marks the turn so a later pickup skips it', async () => {
    const queue = openQueue();
    const nextJob = takeJobs(queue);
    const gateway = await openGateway(queue);
    const controller = new AbortController();
    const failed = collect(
      gateway.agent.run({ history: [], userText: 'long', abortSignal: controller.signal }),
    ).catch((error: unknown) => error);
    const payload = await nextJob();
    const workerInbox = `${prefix}:test-worker-abort`;
    await writer(payload, 'run-1')(0, { kind: 'start', attempt: 1, replyTo: workerInbox });
    await writer(payload, 'run-1')(1, { kind: 'delta', text: 'partial' });
    const reason = new NexusError({ code: 'shutting_down', message: 'bye', retryable: true });
    await new Promise((resolve) => setTimeout(resolve, 100));
    controller.abort(reason);
    expect(await failed).toBe(reason);
    await expect.poll(() => readInbox(workerInbox)).toEqual([{ runId: 'run-1', kind: 'cancel' }]);
    await expect.poll(() => redis.get(keys.done(payload.turnId))).toBe('abandoned');
  });

  it('gives up after its timeout with a retryable model_timeout when no worker answers', async () => {
    const queue = openQueue();
    const gateway = await openGateway(queue, 300);
    await expect(collect(gateway.agent.run({ history: [], userText: 'anyone?' }))).rejects.toMatchObject({
      code: 'model_timeout',
      retryable: true,
    });
  });
});

describe('remote agent with the real worker host', () => {
  let host: AgentRunWorkerHost | undefined;
  afterEach(async () => {
    await host?.close({ timeoutMs: 0 });
    host = undefined;
  });

  it('runs the model on the worker and the tool on the gateway, with the tool bound where it was built', async () => {
    const queue = openQueue();
    const gateway = await openGateway(queue);
    const provider = createOpenAICompatible({ name: 'scripted', baseURL: model.baseUrl });
    host = await startAgentRunWorkerHost({
      redisUrl: REDIS_URL,
      prefix,
      queue,
      agent: createAgent({ model: provider.chatModel('scripted'), maxSteps: 3 }),
      concurrency: 2,
      logger: silentLogger,
    });
    model.reset();
    model.enqueue(
      { toolCalls: [{ name: 'weather', arguments: { city: 'Lisbon' } }] },
      { text: 'Sunny in Lisbon.' },
    );
    const calls: string[] = [];
    const weather = tool({
      description: 'Weather for a city',
      inputSchema: z.object({ city: z.string() }),
      // Runs here, in the gateway process: it can reach what core bound to the person speaking.
      execute: async ({ city }) => {
        calls.push(city);
        return { city, sky: 'clear', personal: 'for ada only' };
      },
    });

    const parts = await collect(
      gateway.agent.run({
        history: [],
        userText: 'Weather?',
        systemContext: '## Known Facts',
        tools: { weather },
      }),
    );
    expect(parts.at(-1)).toMatchObject({ type: 'finish', text: 'Sunny in Lisbon.' });
    expect(calls).toEqual(['Lisbon']);
    const [first, second] = model
      .chatRequests()
      .map((request) => request.body as { messages: unknown[]; tools?: unknown[] });
    expect(JSON.stringify(first?.tools)).toContain('Weather for a city');
    expect(JSON.stringify(first?.messages)).toContain('## Known Facts');
    expect(JSON.stringify(second?.messages)).toContain('for ada only');
  });

  it('gives the worker’s model the turn’s image, fetched from the gateway over the run channel', async () => {
    const queue = openQueue();
    const gateway = await openGateway(queue);
    const provider = createOpenAICompatible({ name: 'scripted', baseURL: model.baseUrl });
    host = await startAgentRunWorkerHost({
      redisUrl: REDIS_URL,
      prefix,
      queue,
      agent: createAgent({ model: provider.chatModel('scripted'), maxSteps: 1 }),
      concurrency: 1,
      logger: silentLogger,
    });
    model.reset();
    model.enqueue({ text: 'A red square.' });
    const image = makePng(8, 8);
    const parts = await collect(
      gateway.agent.run({
        history: [],
        userText: 'What is it?',
        userImages: [{ bytes: image, mediaType: 'image/png' }],
      }),
    );
    expect(parts.at(-1)).toMatchObject({ type: 'finish', text: 'A red square.' });
    expect(JSON.stringify(model.chatRequests()[0]?.body)).toContain(
      `data:image/png;base64,${Buffer.from(image).toString('base64')}`,
    );
  });

  it('reports a model failure as an error reply, not a retried job', async () => {
    const queue = openQueue();
    const gateway = await openGateway(queue);
    const provider = createOpenAICompatible({ name: 'scripted', baseURL: model.baseUrl });
    host = await startAgentRunWorkerHost({
      redisUrl: REDIS_URL,
      prefix,
      queue,
      agent: createAgent({ model: provider.chatModel('scripted'), maxRetries: 0 }),
      concurrency: 1,
      logger: silentLogger,
    });
    model.reset();
    model.enqueue({ status: 401 });
    await expect(collect(gateway.agent.run({ history: [], userText: 'hi' }))).rejects.toMatchObject({
      code: 'model_rejected',
    });
    expect(model.chatRequests()).toHaveLength(1);
  });
});
