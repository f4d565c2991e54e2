import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { type GatewayProcess, startGatewayProcess } from '../testing/gateway-process.ts';

const RECORDER = fileURLToPath(new URL('../testing/record-loaded-packages.ts', import.meta.url));

/** Libraries whose feature is off in a web-only start without Redis, tracing, tools or cron. */
const FEATURE_LIBRARIES = [
  'ioredis',
  'bullmq',
  '@nexus/agent-redis',
  '@nexus/queue-bullmq',
  '@opentelemetry/api',
  '@ai-sdk/otel',
  '@ai-sdk/anthropic',
  '@ai-sdk/openai',
  '@modelcontextprotocol/sdk',
  'cron-parser',
  'luxon',
  'grammy',
  'discord.js',
  'baileys',
  'sharp',
  '@qdrant/js-client-rest',
];

describe('a web-only start', () => {
  const running: GatewayProcess[] = [];
  const directories: string[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((gateway) => gateway.stop()));
    await Promise.all(directories.splice(0).map((path) => rm(path, { recursive: true, force: true })));
  });

  async function packagesLoadedBy(env: Record<string, string>): Promise<string[]> {
    const dataDir = await mkdtemp(join(tmpdir(), 'nexus-lean-'));
    directories.push(dataDir);
    const list = join(dataDir, 'loaded-packages.txt');
    const gateway = await startGatewayProcess(
      {
        NEXUS_DATA_DIR: dataDir,
        NEXUS_WEB_TOKEN: 'lean-token-0123456789abcdef',
        LOADED_PACKAGES_FILE: list,
        ...env,
      },
      { nodeArgs: ['--import', RECORDER] },
    );
    running.push(gateway);
    await expect
      .poll(async () => (await fetch(`${gateway.url}/ready`)).status, { timeout: 10_000 })
      .toBe(200);
    // /metrics builds every default metric, which must not load more either.
    expect((await fetch(`${gateway.url}/metrics`)).status).toBe(200);
    return (await readFile(list, 'utf8')).split('\n').filter(Boolean);
  }

  it('loads the configured provider and no library of a feature that is off', async () => {
    const loaded = await packagesLoadedBy({
      NEXUS_MODEL_PROVIDER: 'openai-compatible',
      NEXUS_MODEL_BASE_URL: 'http://127.0.0.1:9/v1',
      NEXUS_MODEL: 'local',
    });
    // What a web-only start does need is recorded: the list is real.
    expect(loaded).toEqual(expect.arrayContaining(['@ai-sdk/openai-compatible', 'ai', 'ws', 'prom-client']));
    expect(loaded.filter((name) => FEATURE_LIBRARIES.includes(name))).toEqual([]);
  }, 60_000);

  it('loads another provider’s SDK only when that provider is configured', async () => {
    const loaded = await packagesLoadedBy({
      NEXUS_MODEL_PROVIDER: 'anthropic',
      NEXUS_MODEL_API_KEY: 'sk-ant-not-used',
      NEXUS_MODEL: 'claude-test',
    });
    expect(loaded).toContain('@ai-sdk/anthropic');
    expect(loaded).not.toContain('@ai-sdk/openai-compatible');
    expect(loaded).not.toContain('@ai-sdk/openai');
  }, 60_000);
});
