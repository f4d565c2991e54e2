import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '@nexus/protocol';
import {
  type ChatCompletionRequest,
  type ScriptedModelServer,
  startScriptedModelServer,
} from '@nexus/testkit/llm';
import { WebChatClient } from '@nexus/testkit/web-chat';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/load-config.ts';
import { type RunningWorker, startWorker } from '../roles/start-worker.ts';
import { type RunningGateway, startGateway } from '../start-gateway.ts';

// The cost guard through the whole gateway: web chat in, the real agent on the scripted model,
// `/metrics` out; once in one process (role `all`), once with a gateway and a worker on Redis.

const REDIS_URL = 'redis://127.0.0.1:6379';
const TOKEN = 'cost-guard-test-token-0123456789';

let model: ScriptedModelServer;
let dataDir: string;
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  model = await startScriptedModelServer();
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await rm(dataDir, { recursive: true, force: true });
  model.reset();
});
afterAll(async () => {
  await model?.close();
});

function configOf(env: Record<string, string>) {
  return loadConfig({
    env: {
      NEXUS_PORT: '0',
      NEXUS_DATA_DIR: dataDir,
      NEXUS_WEB_TOKEN: TOKEN,
      NEXUS_WEB_MESSAGES_PER_MINUTE: '100000',
      NEXUS_LOG_LEVEL: 'silent',
      NEXUS_MEMORY_EXTRACTION: 'false',
      NEXUS_MODEL_PROVIDER: 'openai-compatible',
      NEXUS_MODEL_BASE_URL: model.baseUrl,
      NEXUS_MODEL: 'scripted',
      // Far above the caps: only the message budget ends the loops below.
      NEXUS_MODEL_MAX_STEPS: '100',
      ...env,
    },
  });
}

async function openGateway(env: Record<string, string>): Promise<RunningGateway> {
  const gateway = await startGateway({ config: configOf(env) });
  closers.push(() => gateway.close());
  return gateway;
}

async function connect(url: string, clientId: string): Promise<WebChatClient> {
  const client = await WebChatClient.connect({ url, token: TOKEN, clientId });
  closers.push(() => client.close());
  return client;
}

async function metric(url: string, sample: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${sample} `));
  return line ? Number(line.slice(sample.length + 1)) : 0;
}

const toolResults = (request: ChatCompletionRequest) =>
  request.messages.filter((message) => message.role === 'tool').length;
const isSubagent = (request: ChatCompletionRequest) =>
  String(request.messages[0]?.content ?? '').startsWith('You are a focused helper');

describe('cost guard in one process', () => {
  it('stops a tool loop at the cap, refuses the next message over the daily budget (also after a restart), and counts both per channel', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'nexus-cost-'));
    const env = { NEXUS_MESSAGE_MAX_MODEL_CALLS: '5', NEXUS_DAILY_TOKENS_PER_PERSON: '1' };
    const gateway = await openGateway(env);
    model.setResponder((request) => ({
      toolCalls: [{ name: 'delegate', arguments: { task: `step ${toolResults(request)}` } }],
    }));
    const client = await connect(gateway.url, 'person-a');

    const first = await client.ask('c1', 'loop forever please');
    expect(model.chatRequests()).toHaveLength(5);
    expect(first.text).toBe(
      'I stopped before finishing: this message reached its limit of 5 model calls. Please ask again in smaller steps.',
    );
    const second = await client.ask('c1', 'and again');
    expect(second.text).toMatch(/^You have used today's allowance of 1 tokens, .* resets at 00:00 UTC/u);
    expect(model.chatRequests()).toHaveLength(5);

    await expect.poll(() => metric(gateway.url, 'nexus_model_calls_total{channel="web"}')).toBe(5);
    expect(await metric(gateway.url, 'nexus_model_tokens_total{channel="web",kind="input"}')).toBeGreaterThan(
      0,
    );
    expect(
      await metric(gateway.url, 'nexus_model_tokens_total{channel="web",kind="output"}'),
    ).toBeGreaterThan(0);
    expect(
      await metric(gateway.url, 'nexus_turns_budget_exhausted_total{channel="web",reason="model_calls"}'),
    ).toBe(1);
    expect(
      await metric(gateway.url, 'nexus_turns_budget_exhausted_total{channel="web",reason="daily_tokens"}'),
    ).toBe(1);

    await client.close();
    await gateway.close();
    const restarted = await openGateway(env);
    const again = await connect(restarted.url, 'person-a');
    expect((await again.ask('c2', 'after the restart')).text).toMatch(/^You have used today's allowance/u);
    expect(model.chatRequests()).toHaveLength(5);
    const other = await connect(restarted.url, 'person-b');
    expect((await other.ask('c3', 'someone else')).text).toContain('limit of 5 model calls');
  });
});

describe('cost guard with a gateway and a worker on Redis', () => {
  const prefix = `nexus-cost-${randomBytes(4).toString('hex')}`;
  afterAll(async () => {
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    let cursor = '0';
    do {
      const [next, found] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (found.length > 0) await redis.del(...found);
    } while (cursor !== '0');
    redis.disconnect();
  });

  it('counts the subagents run on the worker toward the one cap of the message, and both roles show the spend', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'nexus-cost-'));
    const env = {
      NEXUS_REDIS_URL: REDIS_URL,
      NEXUS_REDIS_PREFIX: prefix,
      NEXUS_MESSAGE_MAX_MODEL_CALLS: '7',
      NEXUS_WORKER_CONCURRENCY: '8',
    };
    const gateway = await openGateway({ ...env, NEXUS_ROLE: 'gateway' });
    const worker: RunningWorker = await startWorker({
      config: configOf({ ...env, NEXUS_ROLE: 'worker', NEXUS_HOST: '127.0.0.1' }),
      logger: silentLogger,
    });
    closers.push(() => worker.close());
    model.setResponder((request) => {
      if (isSubagent(request))
        return { toolCalls: [{ name: 'recall', arguments: { query: `more ${toolResults(request)}` } }] };
      if (toolResults(request) > 0) return { text: 'Merged.' };
      return {
        toolCalls: ['a', 'b', 'c'].map((task) => ({ name: 'delegate', arguments: { task: `task ${task}` } })),
      };
    });
    const client = await connect(gateway.url, 'person-c');

    const reply = await client.ask('d1', 'plan it all');
    expect(reply.text).toContain('limit of 7 model calls');
    expect(model.chatRequests()).toHaveLength(7);
    expect(await metric(worker.url, 'nexus_model_calls_total{channel="web"}')).toBe(7);
    // The gateway records a message's spend when its turn finishes, just after the reply reached the client.
    await expect.poll(() => metric(gateway.url, 'nexus_model_calls_total{channel="web"}')).toBe(7);
    expect(await metric(worker.url, 'nexus_model_tokens_total{channel="web",kind="output"}')).toBe(
      await metric(gateway.url, 'nexus_model_tokens_total{channel="web",kind="output"}'),
    );
    expect(
      await metric(gateway.url, 'nexus_turns_budget_exhausted_total{channel="web",reason="model_calls"}'),
    ).toBe(1);
  });
});
