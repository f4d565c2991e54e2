import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createSqliteMemoryStore,
  type MemoryHttpServer,
  MemoryService,
  startMemoryHttpServer,
} from '@nexus/memory';
import { type ScriptedModelServer, startScriptedModelServer } from '@nexus/testkit/llm';
import { WebChatClient } from '@nexus/testkit/web-chat';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CHAT_REPLY,
  isExtraction,
  memoryAwareResponder,
} from '../../apps/gateway/src/testing/memory-test-support.ts';
import { metricValue, Stack } from './stack-processes.ts';

// With a memory service every process reaches (NEXUS_MEMORY_MODE=http), the gateway role only
// enqueues `memory.extract` on Redis and a worker process runs the extraction.

const TOKEN = 'stack-test-token-0123456789';
const MEMORY_KEY = 'stack-test-memory-key-0123456789';

describe('memory extraction on workers', () => {
  let model: ScriptedModelServer;
  let stack: Stack;
  let memoryDir: string;
  let service: MemoryService;
  let memoryServer: MemoryHttpServer;

  beforeAll(async () => {
    model = await startScriptedModelServer();
    model.setResponder(memoryAwareResponder);
    memoryDir = await mkdtemp(join(tmpdir(), 'nexus-stack-memory-'));
    service = new MemoryService({
      store: createSqliteMemoryStore({ path: join(memoryDir, 'memory.sqlite') }),
    });
    memoryServer = await startMemoryHttpServer({ service, apiKey: MEMORY_KEY, port: 0 });
    stack = new Stack({
      modelBaseUrl: model.baseUrl,
      token: TOKEN,
      env: {
        NEXUS_MEMORY_MODE: 'http',
        NEXUS_MEMORY_URL: memoryServer.url,
        NEXUS_MEMORY_API_KEY: MEMORY_KEY,
      },
    });
  });
  afterAll(async () => {
    await stack?.close();
    await memoryServer?.close();
    await model?.close();
    if (memoryDir) await rm(memoryDir, { recursive: true, force: true });
  }, 60_000);

  it('learns from a turn answered by a worker, the extraction also done by a worker', async () => {
    const [gateway, worker] = await Promise.all([stack.start('gateway'), stack.start('worker')]);
    const client = await WebChatClient.connect({ url: gateway.url, token: TOKEN });
    try {
      const reply = await client.ask('veg', "I'm vegetarian and I live in Lisbon");
      expect(reply.text).toBe(CHAT_REPLY);
      await expect
        .poll(() => metricValue(worker.url, 'nexus_worker_memory_extractions_total'), { timeout: 15_000 })
        .toBe(1);
      const stats = await service.stats();
      const contents = (
        await Promise.all(stats.users.map((user) => service.list({ userId: user.userId })))
      ).flatMap((memories) => memories.map((memory) => memory.content));
      expect(contents.sort()).toEqual(['Is vegetarian', 'Lives in Lisbon']);
      expect(model.chatRequests().filter((request) => isExtraction(request.body as never))).toHaveLength(1);
      expect(await metricValue(worker.url, 'nexus_agent_runs_total{outcome="ok"}')).toBe(1);
    } finally {
      await client.close();
    }
  }, 60_000);
});
