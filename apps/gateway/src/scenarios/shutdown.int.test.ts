import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { type ScriptedModelServer, startScriptedModelServer } from '@nexus/testkit/llm';
import { WebChatClient } from '@nexus/testkit/web-chat';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const CLI = fileURLToPath(new URL('../cli.ts', import.meta.url));
const TOKEN = 'shutdown-test-token-0123456789';

let model: ScriptedModelServer;
let dataDir: string;
let child: ChildProcess | undefined;

beforeEach(async () => {
  model = await startScriptedModelServer();
  dataDir = await mkdtemp(join(tmpdir(), 'nexus-shutdown-'));
});

afterEach(async () => {
  child?.kill('SIGKILL');
  await model.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** Starts `nexus start` as a real process and resolves with its URL once it logged that it listens. */
async function startCli(
  env: Record<string, string>,
): Promise<{ url: string; exited: Promise<number | null> }> {
  child = spawn(process.execPath, [CLI, 'start'], {
    env: {
      ...process.env,
      NEXUS_PORT: '0',
      NEXUS_DATA_DIR: dataDir,
      NEXUS_WEB_TOKEN: TOKEN,
      NEXUS_MODEL_PROVIDER: 'openai-compatible',
      NEXUS_MODEL_BASE_URL: model.baseUrl,
      NEXUS_MODEL: 'scripted',
      NEXUS_LOG_PRETTY: 'false',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    lines.on('line', (line) => {
      const entry = JSON.parse(line) as { msg?: string; url?: string };
      if (entry.msg === 'nexus gateway listening' && entry.url) resolve(entry.url);
    });
    exited.then((code) => reject(new Error(`nexus exited early with ${code}`)));
  });
  return { url, exited };
}

describe('SIGTERM with a reply in flight', () => {
  it('lets the reply finish, then exits 0', async () => {
    model.enqueue({ chunks: ['one ', 'two ', 'three ', 'four'], chunkDelayMs: 300 });
    const { url, exited } = await startCli({});
    const client = await WebChatClient.connect({ url, token: TOKEN });
    const reply = client.ask('inflight', 'take your time');
    await client.waitFor((frame) => frame.type === 'event' && frame.event.type === 'reply.delta');
    const signalledAt = Date.now();
    child!.kill('SIGTERM');
    expect((await reply).text).toBe('one two three four');
    expect(await exited).toBe(0);
    expect(Date.now() - signalledAt).toBeLessThan(10_000);
    await client.close();
  });

  it('aborts a reply that outlives the deadline with an error frame, then exits 0 within 10 s', async () => {
    model.enqueue({ hang: true });
    const { url, exited } = await startCli({ NEXUS_SHUTDOWN_DEADLINE_MS: '1500' });
    const client = await WebChatClient.connect({ url, token: TOKEN });
    const reply = client.ask('stuck', 'this will hang');
    await expect.poll(() => model.chatRequests().length).toBe(1);
    const signalledAt = Date.now();
    child!.kill('SIGTERM');
    const result = await reply;
    expect(result.error).toMatchObject({ code: 'shutting_down', retryable: true });
    expect(await exited).toBe(0);
    expect(Date.now() - signalledAt).toBeLessThan(10_000);
    expect(client.frames.some((frame) => frame.type === 'shutdown')).toBe(true);
    await client.close();
  });
});
