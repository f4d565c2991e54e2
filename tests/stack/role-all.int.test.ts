import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type ScriptedModelServer, startScriptedModelServer } from '@nexus/testkit/llm';
import { WebChatClient } from '@nexus/testkit/web-chat';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricValue, Stack } from './stack-processes.ts';

// The compose default: one `all` process (gateway and worker) on Redis, plus an extra worker
// that shares the runs; and the roles that need Redis refusing to start without it.

const TOKEN = 'stack-test-token-0123456789';
const CLI = fileURLToPath(new URL('../../apps/gateway/src/cli.ts', import.meta.url));
const run = promisify(execFile);

describe('role all with Redis', () => {
  let model: ScriptedModelServer;
  let stack: Stack;

  beforeAll(async () => {
    model = await startScriptedModelServer({ latencyMs: 20, recordRequests: false });
    stack = new Stack({ modelBaseUrl: model.baseUrl, token: TOKEN, env: { NEXUS_WORKER_CONCURRENCY: '4' } });
  });
  afterAll(async () => {
    await stack?.close();
    await model?.close();
  }, 60_000);

  it('answers from its own worker and an extra worker process', async () => {
    const [all, extra] = await Promise.all([stack.start('all'), stack.start('worker')]);
    const client = await WebChatClient.connect({ url: all.url, token: TOKEN });
    try {
      const replies = await Promise.all(
        Array.from({ length: 40 }, (_, index) => client.ask(`c${index}`, `hello ${index}`)),
      );
      expect(replies.map((reply) => reply.text)).toEqual(
        Array.from({ length: 40 }, (_, index) => `Echo: hello ${index}`),
      );
      const byExtra = await metricValue(extra.url, 'nexus_agent_runs_total{outcome="ok"}');
      // Each process takes at most 4 runs at a time, so 40 concurrent turns need both.
      expect(byExtra).toBeGreaterThan(0);
      expect(byExtra).toBeLessThan(40);
      const ready = (await (await fetch(`${all.url}/ready`)).json()) as { checks: Record<string, unknown> };
      expect(ready.checks.redis).toEqual({ status: 'up' });
    } finally {
      await client.close();
    }
  }, 60_000);

  it('refuses --role gateway and --role worker without NEXUS_REDIS_URL, saying what to set', async () => {
    const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('NEXUS_')));
    for (const role of ['gateway', 'worker']) {
      const failure = await run(process.execPath, [CLI, 'config', 'check', '--role', role], { env }).then(
        () => undefined,
        (error: { code?: number; stderr?: string }) => error,
      );
      expect(failure?.code).toBe(78);
      expect(failure?.stderr).toContain(`NEXUS_ROLE=${role} needs NEXUS_REDIS_URL`);
    }
  });
});
