import { networkInterfaces } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestGateway } from '../testing/test-gateway.ts';

// `/metrics` and the detailed `/ready` tell whether the owner is connected, which tools and
// channels exist and the Node version: a trusted observer only (see is-trusted-observer.ts).
// "Another machine" is this machine's own non-loopback address, so the peer address the
// gateway sees is not loopback.

const outside = Object.values(networkInterfaces())
  .flat()
  .find((address) => address && !address.internal && address.family === 'IPv4')?.address;
const TOKEN = 'metrics-token-0123456789abcdef';

let gateway: Awaited<ReturnType<typeof startTestGateway>> | undefined;
afterEach(async () => {
  await gateway?.dispose();
  gateway = undefined;
});

async function get(host: string, path: string, headers: Record<string, string> = {}) {
  const response = await fetch(`http://${host}:${new URL(gateway!.url).port}${path}`, { headers });
  return { status: response.status, text: await response.text() };
}

describe.skipIf(!outside)('who may read /metrics and the detailed /ready', () => {
  it('without a token: this machine reads both in full; another machine is refused /metrics and hears only ready', async () => {
    gateway = await startTestGateway({ env: { NEXUS_HOST: '0.0.0.0' } });
    const local = await get('127.0.0.1', '/metrics');
    expect(local.status).toBe(200);
    expect(local.text).toContain('nodejs_version_info');
    expect(JSON.parse((await get('127.0.0.1', '/ready')).text)).toHaveProperty('checks');

    const remote = await get(outside!, '/metrics');
    expect(remote.status).toBe(403);
    expect(remote.text).toContain('NEXUS_METRICS_TOKEN');
    expect(remote.text).not.toContain('nodejs_version_info');
    const ready = await get(outside!, '/ready');
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.text)).toEqual({ ready: true });
    // A reverse proxy on the same host makes every visitor's connection local: its header says so.
    expect((await get('127.0.0.1', '/metrics', { 'x-forwarded-for': '203.0.113.9' })).status).toBe(403);
    expect((await get(outside!, '/health')).status).toBe(200);
  });

  it('with NEXUS_METRICS_TOKEN: the bearer token is needed from anywhere, and is enough', async () => {
    gateway = await startTestGateway({ env: { NEXUS_HOST: '0.0.0.0', NEXUS_METRICS_TOKEN: TOKEN } });
    const bearer = { authorization: `Bearer ${TOKEN}` };
    expect((await get(outside!, '/metrics', bearer)).status).toBe(200);
    expect(JSON.parse((await get(outside!, '/ready', bearer)).text)).toHaveProperty('checks');
    expect((await get(outside!, '/metrics', { authorization: 'Bearer wrong-token-0123456789' })).status).toBe(
      403,
    );
    expect((await get('127.0.0.1', '/metrics')).status).toBe(403);
    expect(JSON.parse((await get('127.0.0.1', '/ready')).text)).toEqual({ ready: true });
  });
});
