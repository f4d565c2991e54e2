import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryClient } from '@nexus/memory';
import { silentLogger } from '@nexus/protocol';
import { type QdrantStandIn, startQdrantStandIn } from '@nexus/testkit/qdrant';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/load-config.ts';
import { scriptedProviderEnv } from '../testing/memory-test-support.ts';
import { type RunningMemoryService, startMemoryService } from './start-memory-service.ts';

// Two memory services as `nexus memory serve` starts them, on one collection of the Qdrant
// stand-in, with NEXUS_REDIS_URL set (the real Redis, a prefix of this run's own), reached over
// HTTP by their clients as two gateways would.
const KEY = 'memory-replicas-test-key-0123456789';
let dataDir: string;
let qdrant: QdrantStandIn;
const running: RunningMemoryService[] = [];

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'nexus-memory-replicas-'));
  qdrant = await startQdrantStandIn();
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((service) => service.close()));
  await qdrant.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function serve(prefix: string): Promise<ReturnType<typeof createMemoryClient>> {
  const config = loadConfig({
    env: {
      ...scriptedProviderEnv(dataDir, 'http://127.0.0.1:9/v1'),
      NEXUS_EMBEDDING_AUTO: 'false',
      NEXUS_HOST: '127.0.0.1',
      NEXUS_PORT: '0',
      NEXUS_MEMORY_API_KEY: KEY,
      NEXUS_QDRANT_URL: qdrant.url,
      NEXUS_QDRANT_COLLECTION: 'replicas',
      NEXUS_REDIS_URL: 'redis://127.0.0.1:6379',
      NEXUS_REDIS_PREFIX: prefix,
    },
  });
  const service = await startMemoryService({ config, logger: silentLogger });
  running.push(service);
  return createMemoryClient({ baseUrl: service.url, apiKey: KEY });
}

describe('nexus memory serve replicas', () => {
  it('make one fact of 50 concurrent identical adds for one person sent to two replicas', async () => {
    const prefix = `test-replicas-${randomUUID().slice(0, 8)}`;
    const left = await serve(prefix);
    const right = await serve(prefix);
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        (index % 2 === 0 ? left : right).add({ userId: 'bob', content: 'Bob plays the cello on Sundays' }),
      ),
    );
    expect(results.filter((result) => result.action === 'inserted')).toHaveLength(1);
    const stored = await right.list({ userId: 'bob' });
    expect(stored.map((memory) => memory.content)).toEqual(['Bob plays the cello on Sundays']);
  });
});
