// Real `nexus start --role …` processes on this machine's Redis, for the stack tests and
// `pnpm bench:scale`. Every run uses its own Redis key prefix and deletes its keys afterwards.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';

const CLI = fileURLToPath(new URL('../../apps/gateway/src/cli.ts', import.meta.url));
/** The log line each role writes once it serves, with its `url`. */
const READY_MESSAGES = new Set([
  'nexus gateway listening',
  'nexus worker ready',
  'nexus memory service listening',
]);
export const REDIS_URL = process.env.NEXUS_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface StackProcess {
  role: 'gateway' | 'worker' | 'all' | 'memory';
  url: string;
  child: ChildProcess;
  /** The last 500 stdout/stderr lines, for failure messages. */
  output: string[];
  exited: Promise<number | null>;
  /** SIGTERM, then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

export interface StackOptions {
  modelBaseUrl: string;
  token: string;
  /** Extra settings for every process. */
  env?: Record<string, string>;
}

/** One deployment: a Redis prefix, a data directory, and the processes started in it. */
export class Stack {
  readonly prefix = `nexus-test-${randomBytes(4).toString('hex')}`;
  readonly processes: StackProcess[] = [];
  /** Every child spawned, ready or not, so `close()` leaves none behind. */
  private readonly children = new Set<ChildProcess>();
  private readonly options: StackOptions;
  private dataDir: string | undefined;

  constructor(options: StackOptions) {
    this.options = options;
  }

  async start(role: StackProcess['role'], env: Record<string, string> = {}): Promise<StackProcess> {
    this.dataDir ??= await mkdtemp(join(tmpdir(), 'nexus-stack-'));
    const inherited = Object.fromEntries(
      Object.entries(process.env).filter(([key]) => !key.startsWith('NEXUS_')),
    );
    const child = spawn(process.execPath, [CLI, 'start', '--role', role], {
      env: {
        ...inherited,
        NEXUS_HOST: '127.0.0.1',
        NEXUS_PORT: '0',
        NEXUS_DATA_DIR: this.dataDir,
        NEXUS_WEB_TOKEN: this.options.token,
        NEXUS_WEB_MESSAGES_PER_MINUTE: '1000000',
        NEXUS_MODEL_PROVIDER: 'openai-compatible',
        NEXUS_MODEL_BASE_URL: this.options.modelBaseUrl,
        NEXUS_MODEL: 'scripted',
        NEXUS_REDIS_URL: REDIS_URL,
        NEXUS_REDIS_PREFIX: this.prefix,
        NEXUS_LOG_PRETTY: 'false',
        NEXUS_LOG_LEVEL: 'info',
        ...this.options.env,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.children.add(child);
    const output: string[] = [];
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`${role} did not start:\n${output.join('\n')}`));
      }, 20_000);
      const onLine = (line: string) => {
        output.push(line);
        if (output.length > 500) output.shift();
        if (!line.startsWith('{')) return;
        try {
          const entry = JSON.parse(line) as { msg?: string; url?: string };
          if (READY_MESSAGES.has(entry.msg ?? '') && entry.url) {
            clearTimeout(timer);
            resolve(entry.url);
          }
        } catch {
          // not a log line
        }
      };
      for (const stream of [child.stdout, child.stderr]) {
        let rest = '';
        stream?.setEncoding('utf8');
        stream?.on('data', (chunk: string) => {
          const lines = (rest + chunk).split('\n');
          rest = lines.pop() ?? '';
          for (const line of lines) onLine(line);
        });
      }
      exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`${role} exited with ${code} before it was ready:\n${output.join('\n')}`));
      });
    });
    const started: StackProcess = {
      role,
      url,
      child,
      output,
      exited,
      async stop(graceMs = 15_000) {
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      },
    };
    this.processes.push(started);
    return started;
  }

  /** Stops every process, deletes this stack's Redis keys and data directory. */
  async close(): Promise<void> {
    await Promise.all(this.processes.splice(0).map((started) => started.stop()));
    // Children that never became ready (a failed start elsewhere in a Promise.all).
    for (const child of this.children)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    this.children.clear();
    await deleteRedisKeys(this.prefix);
    if (this.dataDir) await rm(this.dataDir, { recursive: true, force: true });
  }
}

export async function deleteRedisKeys(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/** A value of one Prometheus sample on `/metrics`, 0 when absent. */
export async function metricValue(url: string, sample: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${sample} `));
  return line ? Number(line.slice(sample.length + 1)) : 0;
}
