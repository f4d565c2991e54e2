import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@nexus/testkit';
import {
  type ChatCompletionRequest,
  type ScriptedModelServer,
  startScriptedModelServer,
} from '@nexus/testkit/llm';
import { RedisProcess } from '@nexus/testkit/redis';
import { WebChatClient } from '@nexus/testkit/web-chat';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  isChatTurn,
  isExtraction,
  memoryAwareResponder,
} from '../../apps/gateway/src/testing/memory-test-support.ts';
import { Stack, type StackProcess } from './stack-processes.ts';

// The distributed path under its own faults, as an operator runs it: a gateway, two workers and
// the memory service as real processes, meeting in a Redis of this test's own (append-only file,
// fsync always). In the middle of a burst of 60 web messages over 6 conversations, one fault:
// Redis SIGKILLed and restarted, Redis frozen with SIGSTOP for 10 s, a worker SIGKILLed, the
// memory service restarted. Every accepted message must be answered exactly once, by reply id.

const TOKEN = 'stack-test-token-0123456789';
const MEMORY_KEY = 'stack-test-memory-key-0123456789';
const MESSAGES = 60;
const CONVERSATIONS = 6;
/** 60 messages over 12 s: a fault at 3–4 s lands with runs queued, running and streaming. */
const PACING_MS = 200;
/** How long a burst may take to be answered after its last message, faults included. */
const SETTLE_MS = 60_000;
const CHAT_CHUNKS = ['The ', 'answer ', 'comes ', 'in ', 'six ', 'parts.'];

interface BurstCounts {
  sent: number;
  accepted: number;
  answered: number;
  answeredTwice: number;
  errors: number;
  /** "Waiting for a worker…" statuses shown (not part of the comparison). */
  waiting?: number;
}

const summary: string[] = [];
let resentRuns = 0;

describe('the distributed path survives Redis, worker and memory service faults', () => {
  let model: ScriptedModelServer;
  let redis: RedisProcess;
  let stack: Stack;
  let gateway: StackProcess;
  let workers: StackProcess[];
  let memory: StackProcess;
  let memoryPort: number;
  let client: WebChatClient;
  let workerEnv: Record<string, string>;
  const memoryEnv = () => ({ NEXUS_PORT: String(memoryPort), NEXUS_MEMORY_API_KEY: MEMORY_KEY });

  beforeAll(async () => {
    model = await startScriptedModelServer({ latencyMs: 5, recordRequests: false });
    // Chat turns stream for ~0.6 s; extraction finds one fact per message, so memory jobs write.
    model.setResponder((request: ChatCompletionRequest) => {
      if (isExtraction(request)) {
        const said = /wrote:\n<<<\n([\s\S]*?)\n>>>/u.exec(
          String(request.messages.findLast((message) => message.role === 'user')?.content ?? ''),
        )?.[1];
        const facts = said ? [{ content: `Said ${said}`, category: 'event', source: 'user_explicit' }] : [];
        return { text: JSON.stringify({ facts }) };
      }
      return isChatTurn(request) ? { chunks: CHAT_CHUNKS, chunkDelayMs: 100 } : memoryAwareResponder(request);
    });
    redis = await RedisProcess.start();
    memoryPort = await freePort();
    stack = new Stack({
      modelBaseUrl: model.baseUrl,
      token: TOKEN,
      env: {
        NEXUS_REDIS_URL: redis.url,
        NEXUS_JOB_LOCK_MS: '4000',
        NEXUS_JOB_STALLED_CHECK_MS: '2000',
        NEXUS_WORKER_CONCURRENCY: '16',
      },
    });
    memory = await stack.start('memory', memoryEnv());
    const shared = {
      NEXUS_MEMORY_MODE: 'http',
      NEXUS_MEMORY_URL: `http://127.0.0.1:${memoryPort}`,
      NEXUS_MEMORY_API_KEY: MEMORY_KEY,
    };
    [gateway, ...workers] = await Promise.all([
      stack.start('gateway', { ...shared, NEXUS_MAX_CONCURRENT_TURNS: '64' }),
      stack.start('worker', shared),
      stack.start('worker', shared),
    ]);
    workerEnv = shared;
    // The gateway's log says when it noticed a run lost inside Redis and sent it again.
    gateway.child.stdout?.on('data', (chunk: string) => {
      resentRuns += chunk.split('agent run lost inside Redis').length - 1;
    });
    client = await WebChatClient.connect({ url: gateway.url, token: TOKEN });
  }, 90_000);

  afterAll(async () => {
    await client?.close();
    await stack?.close();
    await redis?.close();
    await model?.close();
    console.log(`redis-faults counts\n${summary.join('\n')}`);
  }, 60_000);

  /** Sends the burst, runs `fault` at `faultAtMs` into it, and counts what came back. */
  async function burst(name: string, faultAtMs: number, fault: () => Promise<void>): Promise<BurstCounts> {
    const ids = new Map<string, string>();
    const latencies: number[] = [];
    const faulted = new Promise<void>((resolve, reject) => {
      setTimeout(() => fault().then(resolve, reject), faultAtMs);
    });
    for (let index = 0; index < MESSAGES; index++) {
      const conversationId = `${name}-c${index % CONVERSATIONS}`;
      const clientMessageId = `${name}-m${index}`;
      ids.set(clientMessageId, conversationId);
      // The answer is read from the frames below, so an unanswered message does not hang the test.
      const sentAt = Date.now();
      void client
        .ask(conversationId, `${name} message ${index}`, clientMessageId)
        .then(() => latencies.push(Date.now() - sentAt))
        .catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, PACING_MS));
    }
    await faulted;
    const conversations = new Set(ids.values());
    const count = (): BurstCounts => {
      const ends = new Map<string, number>();
      let accepted = 0;
      let errors = 0;
      let waiting = 0;
      for (const frame of client.frames) {
        if (frame.type === 'accepted' && ids.has(frame.clientMessageId) && !frame.duplicate) accepted++;
        if (frame.type !== 'event' || !conversations.has(frame.conversationId)) continue;
        if (frame.event.type === 'reply.end')
          ends.set(frame.event.replyId, (ends.get(frame.event.replyId) ?? 0) + 1);
        if (frame.event.type === 'error') errors++;
        if (frame.event.type === 'status' && frame.event.text === 'Waiting for a worker…') waiting++;
      }
      const answeredTwice = [...ends.values()].filter((times) => times > 1).length;
      return { sent: MESSAGES, accepted, answered: ends.size, answeredTwice, errors, waiting };
    };
    const settleBy = Date.now() + SETTLE_MS;
    let counts = count();
    while (counts.answered + counts.errors < counts.accepted && Date.now() < settleBy) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      counts = count();
    }
    // A second reply would come within a run's time of the first; give it that chance to show.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    counts = count();
    const line = `${name}: sent ${counts.sent}, accepted ${counts.accepted}, answered ${counts.answered}, answered twice ${counts.answeredTwice}, errors ${counts.errors} (waiting statuses ${counts.waiting}, runs sent again so far ${resentRuns}, slowest answer ${Math.max(0, ...latencies)} ms)`;
    summary.push(line);
    console.log(line);
    return counts;
  }

  const expectEveryMessageAnsweredOnce = ({ waiting: _, ...counts }: BurstCounts) =>
    expect(counts).toEqual({
      sent: MESSAGES,
      accepted: MESSAGES,
      answered: MESSAGES,
      answeredTwice: 0,
      errors: 0,
    });

  it('Redis SIGKILLed and restarted 2 s later', async () => {
    const counts = await burst('redis-kill', 4000, async () => {
      await redis.kill();
      await new Promise((resolve) => setTimeout(resolve, 2000));
      await redis.restart();
    });
    expectEveryMessageAnsweredOnce(counts);
  }, 120_000);

  it('Redis frozen with SIGSTOP for 10 s', async () => {
    const counts = await burst('redis-pause', 3000, async () => {
      redis.pause();
      await new Promise((resolve) => setTimeout(resolve, 10_000));
      redis.resume();
    });
    expectEveryMessageAnsweredOnce(counts);
  }, 120_000);

  it('Redis SIGKILLed and restarted empty (its runs lost inside it)', async () => {
    const resentBefore = resentRuns;
    const counts = await burst('redis-wiped', 4000, async () => {
      // The workers are frozen for 2 s first, so runs are waiting in Redis when it loses them.
      for (const worker of workers) worker.child.kill('SIGSTOP');
      await new Promise((resolve) => setTimeout(resolve, 2000));
      await redis.kill();
      await redis.restart({ empty: true });
      for (const worker of workers) worker.child.kill('SIGCONT');
    });
    expectEveryMessageAnsweredOnce(counts);
    // The gateway noticed runs Redis no longer had, and sent them again.
    expect(resentRuns).toBeGreaterThan(resentBefore);
  }, 120_000);

  it('a worker SIGKILLed and restarted', async () => {
    const counts = await burst('worker-kill', 4000, async () => {
      const victim = workers.shift()!;
      victim.child.kill('SIGKILL');
      await victim.exited;
      await new Promise((resolve) => setTimeout(resolve, 2000));
      workers.push(await stack.start('worker', workerEnv));
    });
    expectEveryMessageAnsweredOnce(counts);
  }, 120_000);

  it('the memory service restarted', async () => {
    const counts = await burst('memory-restart', 4000, async () => {
      await memory.stop();
      memory = await stack.start('memory', memoryEnv());
    });
    expectEveryMessageAnsweredOnce(counts);
    // No memory job was lost to the restart: every extraction ran, none is parked.
    const jobs = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    try {
      const key = (state: string) => `${stack.prefix}:memory.extract:${state}`;
      const pending = async () =>
        (await jobs.llen(key('wait'))) +
        (await jobs.llen(key('active'))) +
        (await jobs.zcard(key('delayed')));
      await expect.poll(pending, { timeout: 60_000, interval: 500 }).toBe(0);
      const parked = await jobs.zcard(key('failed'));
      const completed = await jobs.zcard(key('completed'));
      const line = `memory jobs after all bursts: completed ${completed}, parked ${parked}`;
      summary.push(line);
      console.log(line);
      expect(parked).toBe(0);
    } finally {
      jobs.disconnect();
    }
  }, 120_000);

  it('a gateway started while Redis is down serves /health, says why in /ready, and answers once Redis is back', async () => {
    await redis.kill();
    // Its own data directory: a second deployment's gateway, not a second one on the same files.
    const dataDir = await mkdtemp(join(tmpdir(), 'nexus-late-gateway-'));
    const late = await stack.start('gateway', { ...workerEnv, NEXUS_DATA_DIR: dataDir });
    try {
      expect((await fetch(`${late.url}/health`)).status).toBe(200);
      const notReady = await fetch(`${late.url}/ready`);
      expect(notReady.status).toBe(503);
      expect(JSON.stringify(await notReady.json())).toContain('Redis unreachable');
      const lateClient = await WebChatClient.connect({ url: late.url, token: TOKEN });
      try {
        const reply = lateClient.ask('late', 'are you there?');
        // The person is told the message waits, instead of an error.
        await lateClient.waitFor(
          (frame) =>
            frame.type === 'event' &&
            frame.event.type === 'status' &&
            frame.event.text === 'Waiting for a worker…',
          15_000,
        );
        await redis.restart();
        await expect
          .poll(async () => (await fetch(`${late.url}/ready`)).status, { timeout: 20_000 })
          .toBe(200);
        expect((await reply).text).toBe(CHAT_CHUNKS.join(''));
      } finally {
        await lateClient.close();
      }
    } finally {
      await late.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 90_000);
});
