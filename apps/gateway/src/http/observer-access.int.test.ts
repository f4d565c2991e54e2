import { request } from 'node:http';
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

/** A GET to 127.0.0.1 with any `Host` (fetch does not let a caller choose it; a browser would). */
function getAs(hostHeader: string, path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const outgoing = request(
      {
        host: '127.0.0.1',
        port: new URL(gateway!.url).port,
        path,
        headers: { ...headers, host: hostHeader },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end();
  });
}

describe('a request from this machine without a token', () => {
  it('is trusted only when addressed to a loopback name and carrying no proxy header', async () => {
    gateway = await startTestGateway();
    const { port } = new URL(gateway.url);
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, 'localhost']) {
      expect((await getAs(host, '/metrics')).status, host).toBe(200);
    }
    // DNS rebinding: a page at attacker.example re-pointed its name at 127.0.0.1, and the owner's
    // browser sends its requests there with the page's name in Host.
    const rebound = await getAs(`attacker.example:${port}`, '/metrics');
    expect(rebound.status).toBe(403);
    expect(rebound.text).not.toContain('nodejs_version_info');
    expect(JSON.parse((await getAs(`attacker.example:${port}`, '/ready')).text)).toEqual({ ready: true });
    expect((await getAs(`127.0.0.1.attacker.example:${port}`, '/metrics')).status).toBe(403);
    // What reverse proxies add (nginx's X-Real-IP when configured, Via from others): not local.
    for (const header of ['x-real-ip', 'via', 'x-forwarded-host', 'forwarded']) {
      expect((await getAs(`127.0.0.1:${port}`, '/metrics', { [header]: '203.0.113.9' })).status, header).toBe(
        403,
      );
    }
  });

  it('reads the data volume in the detailed /ready, nearly full below NEXUS_DATA_MIN_FREE_MB but still ready', async () => {
    // 10 TB: more than this machine's volume has free.
    gateway = await startTestGateway({ env: { NEXUS_DATA_MIN_FREE_MB: '10000000' } });
    const { port } = new URL(gateway.url);
    let ready: { ready: boolean; checks: Record<string, { status: string; detail?: string }> } | undefined;
    await expect
      .poll(
        async () => {
          const response = await getAs(`127.0.0.1:${port}`, '/ready');
          ready = JSON.parse(response.text);
          return ready?.checks.dataVolume?.status;
        },
        { timeout: 10_000 },
      )
      .toBe('low');
    expect(ready?.ready).toBe(true);
    expect(ready?.checks.dataVolume?.detail).toMatch(
      /^data volume nearly full \([\d.]+ [KMGT]iB free of [\d.]+ [KMGT]iB, below NEXUS_DATA_MIN_FREE_MB=10000000\)/,
    );
  });
});

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
