import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
  type Harness,
  startHarness,
  TEST_TOKEN,
  TestClient,
  UpgradeRefused,
} from './testing/channel-test-harness.ts';

let harness: Harness | undefined;
const clients: TestClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await harness?.close();
  harness = undefined;
});

async function refusal(promise: Promise<unknown>): Promise<number> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(UpgradeRefused);
  return (error as UpgradeRefused).statusCode;
}

describe('upgrade authentication', () => {
  it('accepts the token as a sub-protocol, selects nexus.v1 and never echoes the token', async () => {
    harness = await startHarness();
    let echoed: string | undefined;
    const socket = new WebSocket(`${harness.url}/ws`, ['nexus.v1', `nexus.token.${TEST_TOKEN}`]);
    socket.on('upgrade', (response) => {
      echoed = String(response.headers['sec-websocket-protocol']);
    });
    const client = new TestClient(socket);
    clients.push(client);
    await new Promise((resolve) => socket.once('open', resolve));
    expect(socket.protocol).toBe('nexus.v1');
    expect(echoed).toBe('nexus.v1');
    expect(harness.channel.connectionCount()).toBe(1);
  });

  it('accepts an Authorization: Bearer header from non-browser clients', async () => {
    harness = await startHarness();
    const client = await TestClient.open(harness.url, {
      protocols: [],
      clientOptions: { headers: { authorization: `Bearer ${TEST_TOKEN}` } },
    });
    clients.push(client);
    client.send({ type: 'hello', clientId: 'cli' });
    await expect(client.next((frame) => frame.type === 'welcome')).resolves.toMatchObject({
      type: 'welcome',
    });
  });

  it('answers 401 to a wrong, missing or prefix-of token and keeps no connection', async () => {
    harness = await startHarness();
    expect(await refusal(TestClient.open(harness.url, { token: 'wrong' }))).toBe(401);
    expect(await refusal(TestClient.open(harness.url, { token: TEST_TOKEN.slice(0, -1) }))).toBe(401);
    expect(await refusal(TestClient.open(harness.url, { protocols: ['nexus.v1'] }))).toBe(401);
    const bearer = TestClient.open(harness.url, {
      protocols: [],
      clientOptions: { headers: { authorization: 'Bearer nope' } },
    });
    expect(await refusal(bearer)).toBe(401);
    expect(harness.channel.connectionCount()).toBe(0);
  });

  it('refuses a browser Origin outside allowedOrigins with 403 but allows listed and absent origins', async () => {
    harness = await startHarness({ allowedOrigins: ['http://127.0.0.1:8787'] });
    const evil = TestClient.open(harness.url, { clientOptions: { origin: 'https://evil.example' } });
    expect(await refusal(evil)).toBe(403);
    clients.push(await TestClient.open(harness.url, { clientOptions: { origin: 'http://127.0.0.1:8787' } }));
    clients.push(await TestClient.open(harness.url));
    expect(harness.channel.connectionCount()).toBe(2);
  });

  it('leaves other paths to the caller and refuses upgrades while stopped', async () => {
    harness = await startHarness();
    const other = new WebSocket(`${harness.url}/elsewhere`, ['nexus.v1', `nexus.token.${TEST_TOKEN}`]);
    const status = await new Promise<number>((resolve) => {
      other.on('error', () => {});
      other.once('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
    });
    expect(status).toBe(404);
    await harness.channel.stop();
    expect(await refusal(TestClient.open(harness.url))).toBe(503);
  });

  it('tells a plain GET with a wrong token (401) from one with the right token (426)', async () => {
    harness = await startHarness();
    const base = harness.url.replace('ws:', 'http:');
    const wrong = await fetch(`${base}/ws`, { headers: { authorization: 'Bearer wrong' } });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toBe('Bearer');
    const missing = await fetch(`${base}/ws`);
    expect(missing.status).toBe(401);
    const right = await fetch(`${base}/ws`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } });
    expect(right.status).toBe(426);
    expect(right.headers.get('upgrade')).toBe('websocket');
    expect((await fetch(`${base}/other`)).status).toBe(404);
    await Promise.all([wrong, missing, right].map((response) => response.body?.cancel()));
  });

  it('survives a plain HTTP request and a client that vanishes mid-handshake', async () => {
    harness = await startHarness();
    const { port } = new URL(harness.url);
    await new Promise<void>((resolve) => {
      const raw = httpRequest({
        host: '127.0.0.1',
        port,
        path: '/ws',
        headers: { connection: 'Upgrade', upgrade: 'websocket', authorization: `Bearer ${TEST_TOKEN}` },
      });
      // No Sec-WebSocket-Key: ws answers 400; then we drop the socket abruptly.
      raw.on('response', (response) => {
        expect(response.statusCode).toBe(400);
        raw.destroy();
        resolve();
      });
      raw.on('error', () => resolve());
      raw.end();
    });
    const client = await TestClient.greeted(harness.url, 'after');
    clients.push(client);
    expect(harness.channel.health().status).toBe('up');
  });
});
