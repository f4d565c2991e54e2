import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type FakeTelegram, startFakeTelegram } from '@nexus/testkit/telegram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type GatewayProcess, startGatewayProcess } from '../testing/gateway-process.ts';
import { type HttpAttack, httpAttacks } from '../testing/http-attacks.ts';
import { type RawExchange, sendRawRequest } from '../testing/send-raw-request.ts';

// Hundreds of hostile or broken requests, as raw bytes on real TCP connections, at every route of
// a real `nexus start` process. Before this test existed, `GET // HTTP/1.1` alone ended the
// process. Now: it stays up, nothing outside the web root is ever served, /health stays 200.

const WEB_DIST = fileURLToPath(new URL('../../../web/dist/', import.meta.url));
const TOKEN = 'surface-token-0123456789abcdef';
const SECRET = 'webhook-secret-0123456789';
const TELEGRAM_PATH = '/telegram/webhook';

let telegram: FakeTelegram;
let gateway: GatewayProcess;
let dataDir: string;
let assetPath: string;
let asset: Buffer;
/** Text that only files outside the web root contain. */
let outsideMarkers: string[];

async function gatewayEnv(extra: Record<string, string> = {}): Promise<Record<string, string>> {
  return {
    NEXUS_DATA_DIR: await mkdtemp(join(tmpdir(), 'nexus-surface-')),
    NEXUS_WEB_TOKEN: TOKEN,
    NEXUS_TELEGRAM_BOT_TOKEN: telegram.token,
    NEXUS_TELEGRAM_API_ROOT: telegram.apiRoot,
    // Only the path matters here: the gateway serves it, the fake Telegram never calls it.
    NEXUS_TELEGRAM_WEBHOOK_URL: `http://127.0.0.1:1${TELEGRAM_PATH}`,
    NEXUS_TELEGRAM_WEBHOOK_SECRET: SECRET,
    NEXUS_HTTP_HEADERS_TIMEOUT_MS: '1000',
    NEXUS_HTTP_REQUEST_TIMEOUT_MS: '2000',
    NEXUS_LOG_LEVEL: 'info',
    ...extra,
  };
}

async function health(url: string): Promise<number> {
  return fetch(`${url}/health`, { signal: AbortSignal.timeout(5000) }).then(
    (response) => response.status,
    () => 0,
  );
}

function statusOf(exchange: RawExchange): number | undefined {
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(exchange.response.toString('latin1'));
  return match ? Number(match[1]) : undefined;
}

async function runAll(attacks: HttpAttack[], concurrency: number): Promise<Map<string, RawExchange>> {
  const results = new Map<string, RawExchange>();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < attacks.length) {
        const attack = attacks[next++]!;
        results.set(attack.name, await sendRawRequest({ host: '127.0.0.1', port: gateway.port }, attack));
      }
    }),
  );
  return results;
}

beforeAll(async () => {
  const assets = await readdir(join(WEB_DIST, 'assets')).catch(() => []);
  if (assets.length === 0) throw new Error('The web client is not built: run `pnpm build` first.');
  assetPath = `/assets/${assets.sort()[0]}`;
  asset = await readFile(join(WEB_DIST, assetPath));
  const rootPackage = await readFile(new URL('../../../../package.json', import.meta.url), 'utf8');
  outsideMarkers = [JSON.parse(rootPackage).description as string, '"@nexus/gateway"', 'root:x:0:0'];
  telegram = await startFakeTelegram();
  const env = await gatewayEnv();
  dataDir = env.NEXUS_DATA_DIR!;
  gateway = await startGatewayProcess(env);
});

afterAll(async () => {
  await gateway?.stop();
  await telegram?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('the HTTP surface under hostile requests', () => {
  it('answers every attack at every route, serves nothing outside the web root, and stays up', async () => {
    const attacks = httpAttacks({
      token: TOKEN,
      telegramPath: TELEGRAM_PATH,
      telegramSecret: SECRET,
      assetPath,
    });
    expect(attacks.length).toBeGreaterThan(500);
    const results = await runAll(attacks, 8);

    expect(gateway.isAlive(), gateway.output.slice(-20).join('\n')).toBe(true);
    expect(await health(gateway.url)).toBe(200);
    const leaks = [...results].filter(([, exchange]) =>
      outsideMarkers.some((marker) => exchange.response.includes(marker)),
    );
    expect(leaks.map(([name]) => name)).toEqual([]);
    // Every failure was a deliberate answer: no handler threw, nothing crashed, no 500.
    const failures = gateway.output.filter((line) =>
      /HTTP (upgrade )?handler failed|uncaughtException|unhandledRejection/.test(line),
    );
    expect(failures).toEqual([]);
    const serverErrors = [...results].filter(([, exchange]) => (statusOf(exchange) ?? 0) >= 500);
    expect(serverErrors.map(([name, exchange]) => `${name}: ${statusOf(exchange)}`)).toEqual([]);

    // The requests that used to end the process get ordinary answers.
    expect(statusOf(results.get('GET //')!)).toBe(404);
    expect(statusOf(results.get('GET //x:99999/')!)).toBe(404);
    expect(statusOf(results.get('GET http://[::1/')!)).toBe(400);
    expect(statusOf(results.get('OPTIONS *')!)).toBe(400);
    expect(statusOf(results.get('POST /api/channels/%E0%A4%A/relink')!)).toBe(400);
    // Traversal in every spelling finds nothing.
    for (const name of [
      'GET /%2e%2e/%2e%2e/etc/passwd',
      'GET /..%5c..%5cpackage.json',
      'GET /assets/%2e%2e/%2e%2e/%2e%2e/package.json',
      'GET /index.html%00.js',
    ]) {
      expect(statusOf(results.get(name)!), name).toBe(404);
    }
    expect(statusOf(results.get('GET /..\\..\\..\\package.json')!)).toBe(400);
    // Bodies past the limits are refused, not buffered.
    expect(statusOf(results.get(`POST ${TELEGRAM_PATH} with a 3 MiB body`)!)).toBe(413);
    expect(statusOf(results.get(`POST ${TELEGRAM_PATH} with invalid JSON`)!)).toBe(400);
    // The web root itself is still served.
    const served = results.get(`GET ${assetPath}`)!;
    expect(statusOf(served)).toBe(200);
    expect(served.response.includes(asset)).toBe(true);
  });

  it('closes a connection whose headers trickle in slower than the headers timeout', async () => {
    const trickle: HttpAttack['parts'] = [];
    for (let index = 0; index < 60; index += 1)
      trickle.push(index === 0 ? 'GET /health HTTP/1.1\r\n' : 'X: y\r\n', 100);
    const exchange = await sendRawRequest(
      { host: '127.0.0.1', port: gateway.port, giveUpMs: 20_000 },
      { name: 'slow', parts: trickle },
    );
    expect(exchange.closedBy).toBe('server');
    expect(statusOf(exchange)).toBe(408);
    expect(await health(gateway.url)).toBe(200);
  });

  it('closes a request whose body never finishes within the request timeout', async () => {
    const exchange = await sendRawRequest(
      { host: '127.0.0.1', port: gateway.port, giveUpMs: 20_000 },
      {
        name: 'stalled body',
        parts: [
          `POST /api/pairing/approve HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"code":`,
        ],
      },
    );
    expect(exchange.closedBy).toBe('server');
    expect(gateway.isAlive()).toBe(true);
  });
});

describe('the connection cap', () => {
  it('drops connections beyond NEXUS_HTTP_MAX_CONNECTIONS and serves again once they close', async () => {
    const capped = await startGatewayProcess(await gatewayEnv({ NEXUS_HTTP_MAX_CONNECTIONS: '3' }));
    const sockets: WebSocket[] = [];
    try {
      for (let index = 0; index < 3; index += 1) {
        const socket = new WebSocket(`${capped.url.replace('http', 'ws')}/ws`, 'nexus.v1', {
          headers: { authorization: `Bearer ${TOKEN}` },
        });
        sockets.push(socket);
        await new Promise((resolve, reject) => {
          socket.once('open', resolve);
          socket.once('error', reject);
        });
      }
      const refused = await sendRawRequest(
        { host: '127.0.0.1', port: capped.port, giveUpMs: 10_000 },
        { name: 'one too many', parts: ['GET /health HTTP/1.1\r\nHost: x\r\n\r\n'] },
      );
      expect(refused.closedBy).toBe('server');
      expect(refused.response.length).toBe(0);
      for (const socket of sockets) socket.close();
      await Promise.all(sockets.map((socket) => new Promise((resolve) => socket.once('close', resolve))));
      await expect.poll(() => health(capped.url), { timeout: 10_000 }).toBe(200);
      // The child's log line may reach us after the health check: its stdout is a pipe.
      await expect
        .poll(() => capped.output.some((line) => line.includes('HTTP connection limit reached')))
        .toBe(true);
    } finally {
      for (const socket of sockets) socket.terminate();
      await capped.stop();
    }
  });
});
