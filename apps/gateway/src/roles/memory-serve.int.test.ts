import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

// `nexus memory serve` as an operator starts it: a free port, /health without a key, every other
// route behind it, the gateway's request-target guard in front, and no start without a key on
// an address other machines reach.

const CLI = fileURLToPath(new URL('../cli.ts', import.meta.url));
const KEY = 'memory-serve-test-key-0123456789';
const children: ChildProcess[] = [];
const directories: string[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  await Promise.all(
    directories.splice(0).map((directory) => rm(directory, { recursive: true, force: true })),
  );
});

async function serve(env: Record<string, string>) {
  const dataDir = await mkdtemp(join(tmpdir(), 'nexus-memory-serve-'));
  directories.push(dataDir);
  const child = spawn(process.execPath, [CLI, 'memory', 'serve'], {
    env: {
      PATH: process.env.PATH ?? '',
      NEXUS_DATA_DIR: dataDir,
      NEXUS_HOST: '127.0.0.1',
      NEXUS_PORT: '0',
      NEXUS_LOG_PRETTY: 'false',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = new Promise<string | undefined>((resolve) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /"url":"(http:\/\/[^"]+)".*"msg":"nexus memory service listening"/u.exec(output);
      if (match) resolve(match[1]);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    exited.then(() => resolve(undefined));
  });
  return { child, exited, url: await url, output: () => output };
}

function cli(args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { env: { PATH: process.env.PATH ?? '', NEXUS_DATA_DIR: tmpdir(), ...env }, timeout: 20_000 },
      (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)),
    );
  });
}

/** A raw request line, as a client that does not go through `fetch` can send it. */
function rawGet(url: string, target: string, headers: Record<string, string> = {}): Promise<number> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { host: hostname, port, path: target, method: 'GET', headers },
      (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      },
    );
    request.once('error', reject);
    request.end();
  });
}

describe('nexus memory serve', () => {
  it('starts on a free port, answers /health, and asks for the key everywhere else', async () => {
    // The key from a file, as a compose secret hands it over.
    const secrets = await mkdtemp(join(tmpdir(), 'nexus-memory-key-'));
    directories.push(secrets);
    await writeFile(join(secrets, 'memory-api-key'), `${KEY}\n`, { mode: 0o600 });
    const service = await serve({ NEXUS_MEMORY_API_KEY_FILE: join(secrets, 'memory-api-key') });
    expect(service.url, service.output()).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/u);
    const health = await fetch(`${service.url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok', search: 'lexical' });
    expect((await fetch(`${service.url}/stats`)).status).toBe(401);
    const added = await fetch(`${service.url}/add`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ scope: 'global', content: 'The team stand-up is at 09:30' }),
    });
    expect(added.status).toBe(201);
    const stats = await fetch(`${service.url}/stats`, { headers: { 'x-api-key': KEY } });
    expect(await stats.json()).toMatchObject({ globalMemories: 1 });
    // The operator's commands reach the service when NEXUS_MEMORY_MODE=http.
    const listed = await cli(['memory', 'list', '--global'], {
      NEXUS_MEMORY_MODE: 'http',
      NEXUS_MEMORY_URL: service.url!,
      NEXUS_MEMORY_API_KEY: KEY,
    });
    expect(listed).toMatch(/\(global\)\s+global\s+fact\s+inferred\s+\S+\s+The team stand-up is at 09:30/u);
    expect(await rawGet(service.url!, '*')).toBe(400);
    expect(await rawGet(service.url!, '//health')).toBe(404);

    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(0);
  }, 30_000);

  it('refuses to listen beyond loopback without a key, and serves loopback without one', async () => {
    const exposed = await serve({ NEXUS_HOST: '0.0.0.0' });
    expect(exposed.url).toBeUndefined();
    expect(await exposed.exited).toBe(78);
    expect(exposed.output()).toContain('NEXUS_MEMORY_API_KEY');

    const pointedElsewhere = await serve({
      NEXUS_MEMORY_API_KEY: KEY,
      NEXUS_MEMORY_MODE: 'http',
      NEXUS_MEMORY_URL: 'http://127.0.0.1:9',
    });
    expect(await pointedElsewhere.exited).toBe(78);
    expect(pointedElsewhere.output()).toContain('NEXUS_MEMORY_MODE=http');

    const local = await serve({});
    expect(local.url, local.output()).toBeDefined();
    expect((await fetch(`${local.url}/stats`)).status).toBe(200);
    const port = new URL(local.url!).port;
    expect(await rawGet(local.url!, '/stats', { host: `localhost:${port}` })).toBe(200);
    expect(await rawGet(local.url!, '/stats', { host: `[::1]:${port}` })).toBe(200);
    // A DNS-rebinding page: its own name now points at 127.0.0.1, and the browser says so in Host.
    for (const host of [
      `evil.example:${port}`,
      'evil.example',
      `127.0.0.1.evil.example:${port}`,
      `localhost.evil.example`,
    ])
      expect(await rawGet(local.url!, '/stats', { host }), host).toBe(403);
    expect(await rawGet(local.url!, '/health', { host: 'evil.example' })).toBe(403);
  }, 30_000);

  it('with a key, answers a request addressed by any name once the key matches', async () => {
    const service = await serve({ NEXUS_MEMORY_API_KEY: KEY });
    expect(await rawGet(service.url!, '/stats', { host: 'memory.internal:8787', 'x-api-key': KEY })).toBe(
      200,
    );
    expect(await rawGet(service.url!, '/stats', { host: 'evil.example' })).toBe(401);
  }, 30_000);
});
