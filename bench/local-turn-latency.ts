// `pnpm bench:local-turn`: a web-chat turn's latency on the `pnpm start` path (one process, every
// store embedded, the production entry point with the start script's V8 flags), measured exactly
// as the stack test measures it through Docker (tests/stack/compose-stack.docker.test.ts): one
// client, 20 sequential turns after a warm-up, against the same zero-latency scripted model.
// Prints {"turns":20,"median_ms":…,"p95_ms":…} and the load average.
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startScriptedModelServer } from '@nexus/testkit/llm';
import { WebChatClient } from '@nexus/testkit/web-chat';
import { startGatewayProcess } from '../apps/gateway/src/testing/gateway-process.ts';
import { memoryAwareResponder } from '../apps/gateway/src/testing/memory-test-support.ts';

const TOKEN = 'local-turn-bench-token-0123456789';
const model = await startScriptedModelServer();
model.setResponder(memoryAwareResponder);
const dataDir = await mkdtemp(join(tmpdir(), 'nexus-local-turn-'));
const gateway = await startGatewayProcess(
  {
    NEXUS_DATA_DIR: dataDir,
    NEXUS_WEB_TOKEN: TOKEN,
    NEXUS_WEB_MESSAGES_PER_MINUTE: '100000',
    NEXUS_RATE_LIMIT_PER_MINUTE: '100000',
    NEXUS_RATE_LIMIT_BURST: '1000',
    NEXUS_MODEL_PROVIDER: 'openai-compatible',
    NEXUS_MODEL_BASE_URL: model.baseUrl,
    NEXUS_MODEL: 'scripted',
    MALLOC_ARENA_MAX: '2',
  },
  { nodeArgs: ['--max-semi-space-size=8', '--max-old-space-size=192'] },
);
const client = await WebChatClient.connect({ url: gateway.url, token: TOKEN, clientId: 'ann' });
try {
  await client.ask('first', "I'm vegetarian and I live in Lisbon");
  await client.ask('second', 'What should I cook tonight?');
  const latencies: number[] = [];
  for (let turn = 0; turn < 20; turn += 1) {
    const started = performance.now();
    await client.ask('latency', `turn ${turn}`);
    latencies.push(performance.now() - started);
  }
  latencies.sort((left, right) => left - right);
  process.stdout.write(
    `${JSON.stringify({
      turns: latencies.length,
      median_ms: Math.round(latencies[10]!),
      p95_ms: Math.round(latencies[18]!),
      load_average: loadavg().map((value) => Number(value.toFixed(2))),
    })}\n`,
  );
} finally {
  await client.close();
  await gateway.stop();
  await model.close();
  await rm(dataDir, { recursive: true, force: true });
}
