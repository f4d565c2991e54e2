// `.ci/run` proves the Node.js minimum stated in apps/gateway/bin/require-node.mjs: the gateway
// starts on the lowest Node it claims (`/ready` 200, one web-chat turn answered through the scripted
// model server), and every older Node given is refused with the one-line message and exit code 79
// by both entry points (`nexus` and the preflight `pnpm start` / `pnpm test` run).
//
//   node scripts/check-node-minimum.ts --minimum /path/to/node-22.18.0 --too-old /path/to/node-20 …
//
// Prints one JSON line per Node tried; exits 1 when any expectation fails.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startScriptedModelServer } from '@nexus/testkit/llm';
import { WebChatClient } from '@nexus/testkit/web-chat';
import { EXIT_NODE_TOO_OLD, MINIMUM_NODE_VERSION } from '../apps/gateway/bin/require-node.mjs';

const ENTRY_POINTS = {
  nexus: fileURLToPath(new URL('../apps/gateway/bin/nexus.mjs', import.meta.url)),
  preflight: fileURLToPath(new URL('../apps/gateway/bin/require-node.mjs', import.meta.url)),
};
const START_DEADLINE_MS = 60_000;

const { values } = parseArgs({
  options: {
    minimum: { type: 'string' },
    'too-old': { type: 'string', multiple: true, default: [] },
  },
});
if (!values.minimum) {
  console.error('usage: check-node-minimum.ts --minimum <node binary> [--too-old <node binary>]…');
  process.exit(2);
}

let failed = false;
const report = (line: Record<string, unknown>, ok: boolean) => {
  console.log(JSON.stringify({ ok, ...line }));
  if (!ok) failed = true;
};

for (const binary of values['too-old']) await checkRefusal(binary);
await checkStart(values.minimum);
process.exit(failed ? 1 : 0);

function run(binary: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
  const child = spawn(binary, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, output: () => ({ stdout, stderr }) };
}

async function nodeVersion(binary: string): Promise<string> {
  const probe = run(binary, ['-p', 'process.version']);
  await probe.exited;
  return probe.output().stdout.trim();
}

/** An older Node must print exactly one line naming both versions and exit 79, from each entry point. */
async function checkRefusal(binary: string): Promise<void> {
  const version = await nodeVersion(binary);
  for (const [entry, path] of Object.entries(ENTRY_POINTS)) {
    const attempt = run(binary, [path, 'start']);
    const code = await attempt.exited;
    const { stdout, stderr } = attempt.output();
    const lines = stderr.trim().split('\n');
    const ok =
      code === EXIT_NODE_TOO_OLD &&
      stdout === '' &&
      lines.length === 1 &&
      lines[0]?.includes(`needs Node.js ${MINIMUM_NODE_VERSION}`) === true &&
      lines[0]?.includes(version.replace(/^v/, '')) === true;
    report({ node: version, entry, expected: 'refused', exit: code, printed: stderr.trim() }, ok);
  }
}

/** The lowest claimed Node starts the gateway, reports ready and answers a web-chat turn. */
async function checkStart(binary: string): Promise<void> {
  const version = await nodeVersion(binary);
  const model = await startScriptedModelServer();
  model.enqueue({ text: 'Hello from the minimum Node.' });
  const dataDir = await mkdtemp(join(tmpdir(), 'nexus-node-minimum-'));
  const token = 'node-minimum-check-token';
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith('NEXUS_')),
  );
  const gateway = run(binary, [ENTRY_POINTS.nexus, 'start'], {
    ...inherited,
    NODE_COMPILE_CACHE: join(dataDir, 'compile-cache'),
    NEXUS_HOST: '127.0.0.1',
    NEXUS_PORT: '0',
    NEXUS_DATA_DIR: dataDir,
    NEXUS_WEB_TOKEN: token,
    NEXUS_MODEL_PROVIDER: 'openai-compatible',
    NEXUS_MODEL_BASE_URL: model.baseUrl,
    NEXUS_MODEL: 'scripted',
    NEXUS_LOG_PRETTY: 'false',
  });
  const started = Date.now();
  try {
    const url = await listeningUrl(gateway);
    const ready = await fetch(`${url}/ready`);
    const client = await WebChatClient.connect({ url, token });
    const reply = await client.ask('node-minimum', 'Are you there?');
    await client.close();
    const ok = ready.status === 200 && reply.text === 'Hello from the minimum Node.';
    report(
      {
        node: version,
        expected: 'started',
        ready_status: ready.status,
        reply: reply.text ?? reply.error?.message,
        ready_after_ms: Date.now() - started,
      },
      ok,
    );
  } catch (error) {
    report({ node: version, expected: 'started', error: String(error), log: gateway.output() }, false);
  } finally {
    gateway.child.kill('SIGTERM');
    const code = await gateway.exited;
    if (code !== 0) report({ node: version, expected: 'exit 0 on SIGTERM', exit: code }, false);
    await model.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** The `url` of the gateway's "nexus gateway listening" log line. */
async function listeningUrl(gateway: ReturnType<typeof run>): Promise<string> {
  const deadline = Date.now() + START_DEADLINE_MS;
  while (Date.now() < deadline) {
    for (const line of gateway.output().stdout.split('\n')) {
      if (!line.startsWith('{')) continue;
      const entry = JSON.parse(line) as { msg?: string; url?: string };
      if (entry.msg === 'nexus gateway listening' && entry.url) return entry.url;
    }
    if (gateway.child.exitCode !== null) throw new Error(`exited with ${gateway.child.exitCode}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`not listening within ${START_DEADLINE_MS} ms`);
}
