import { type ScriptedModelServer, startScriptedModelServer } from '@nexus/testkit/llm';
import { WebChatClient } from '@nexus/testkit/web-chat';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CHAT_REPLY,
  isChatTurn,
  isExtraction,
  memoryAwareResponder,
} from '../../apps/gateway/src/testing/memory-test-support.ts';
import { metricValue, Stack } from './stack-processes.ts';

// Three real processes: `nexus start --role memory` (the memory service on its own SQLite file),
// a gateway and a worker meeting in Redis, both with NEXUS_MEMORY_MODE=http. A fact told on one
// turn is extracted on the worker into the memory service, and is in the next turn's prompt.

const TOKEN = 'stack-test-token-0123456789';
const MEMORY_KEY = 'stack-test-memory-key-0123456789';

describe('memory service as its own process', () => {
  let model: ScriptedModelServer;
  let stack: Stack;

  beforeAll(async () => {
    model = await startScriptedModelServer();
    model.setResponder(memoryAwareResponder);
    stack = new Stack({ modelBaseUrl: model.baseUrl, token: TOKEN });
  });
  afterAll(async () => {
    await stack?.close();
    await model?.close();
  }, 60_000);

  it('remembers across turns: gateway, worker and memory service in three processes', async () => {
    const memory = await stack.start('memory', { NEXUS_MEMORY_API_KEY: MEMORY_KEY });
    const shared = {
      NEXUS_MEMORY_MODE: 'http',
      NEXUS_MEMORY_URL: memory.url,
      NEXUS_MEMORY_API_KEY: MEMORY_KEY,
    };
    const [gateway, worker] = await Promise.all([
      stack.start('gateway', shared),
      stack.start('worker', shared),
    ]);
    const client = await WebChatClient.connect({ url: gateway.url, token: TOKEN });
    try {
      expect((await client.ask('veg', "I'm vegetarian and I live in Lisbon")).text).toBe(CHAT_REPLY);
      await expect
        .poll(() => metricValue(worker.url, 'nexus_worker_memory_extractions_total'), { timeout: 15_000 })
        .toBe(1);
      // The facts are in the memory service, reached over its API with its key.
      const stats = await fetch(`${memory.url}/stats`, { headers: { 'x-api-key': MEMORY_KEY } });
      expect(((await stats.json()) as { totalMemories: number }).totalMemories).toBe(2);
      expect((await fetch(`${memory.url}/stats`)).status).toBe(401);

      expect((await client.ask('dinner', 'Any idea where to eat in Lisbon tonight?')).text).toBe(CHAT_REPLY);
      const turns = model.chatRequests().filter((request) => isChatTurn(request.body as never));
      expect(turns).toHaveLength(2);
      const prompt = JSON.stringify(turns[1]?.body);
      expect(prompt).toContain('Is vegetarian');
      expect(prompt).toContain('Lives in Lisbon');
      expect(JSON.stringify(turns[0]?.body)).not.toContain('Is vegetarian');
      expect(
        model.chatRequests().filter((request) => isExtraction(request.body as never)).length,
      ).toBeGreaterThanOrEqual(1);
    } finally {
      await client.close();
    }
  }, 90_000);
});
