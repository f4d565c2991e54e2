import { type ChildProcess, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { enqueueMemoryExtraction, MEMORY_EXTRACT_JOB, startMemoryExtractionWorker } from '@nexus/core';
import {
  createSqliteMemoryStore,
  type MemoryHttpServer,
  MemoryService,
  startMemoryHttpServer,
} from '@nexus/memory';
import type { JobQueue } from '@nexus/protocol';
import { type ScriptedModelServer, startScriptedModelServer } from '@nexus/testkit/llm';
import { afterEach, describe, expect, it } from 'vitest';
import { type ExtractionWorkerChildConfig, openCrashTestQueue } from '../testing/extraction-worker-child.ts';
import { memoryAwareResponder, withOverrides } from '../testing/memory-test-support.ts';

const CHILD = fileURLToPath(new URL('../testing/extraction-worker-child.ts', import.meta.url));
const API_KEY = 'crash-test-key-0123456789';
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

/** Memory over HTTP whose second `add` ever never answers: the worker dies between two writes. */
async function memoryWithAStuckSecondWrite() {
  const store = createSqliteMemoryStore({ path: ':memory:' });
  const service = new MemoryService({ store });
  let adds = 0;
  let reachedStuckWrite: () => void = () => {};
  const stuck = new Promise<void>((resolve) => {
    reachedStuckWrite = resolve;
  });
  const server: MemoryHttpServer = await startMemoryHttpServer({
    apiKey: API_KEY,
    service: withOverrides(service, {
      add: (options) => {
        adds += 1;
        if (adds === 2) {
          reachedStuckWrite();
          return new Promise<never>(() => {});
        }
        return service.add(options);
      },
    }),
  });
  cleanups.push(async () => {
    await server.close();
    await store.close();
  });
  return { server, service, stuck, adds: () => adds };
}

function startChild(config: ExtractionWorkerChildConfig): { child: ChildProcess; ready: Promise<void> } {
  const child = fork(CHILD, [JSON.stringify(config)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  });
  const ready = new Promise<void>((resolve, reject) => {
    child.on('message', (message: { type?: string }) => message.type === 'ready' && resolve());
    child.once('exit', (code, signal) => reject(new Error(`worker exited early (${code ?? signal})`)));
  });
  return { child, ready };
}

async function crashMidJobThenRestart(queueConfig: ExtractionWorkerChildConfig['queue']) {
  const model: ScriptedModelServer = await startScriptedModelServer();
  cleanups.push(() => model.close());
  model.setResponder(memoryAwareResponder);
  const memory = await memoryWithAStuckSecondWrite();
  const queue: JobQueue = openCrashTestQueue(queueConfig);
  cleanups.push(() => queue.close({ timeoutMs: 500 }));

  await enqueueMemoryExtraction({
    queue,
    payload: {
      userId: 'web:ana',
      sessionId: 'web:c1',
      channel: 'web',
      conversationId: 'c1',
      conversationKind: 'direct',
      intentId: `m-${randomUUID()}`,
      userText: "I'm vegetarian and I live in Lisbon",
      replyText: 'Noted.',
      occurredAt: new Date().toISOString(),
    },
  });
  const { child, ready } = startChild({
    queue: queueConfig,
    memoryUrl: memory.server.url,
    memoryApiKey: API_KEY,
    modelBaseUrl: model.baseUrl,
  });
  await ready;
  await memory.stuck;
  // The worker wrote the first fact and is waiting on the second: kill it there.
  child.kill('SIGKILL');
  await new Promise((resolve) => child.once('exit', resolve));

  const completions: Array<{ attempt: number; added: number; unchanged: number }> = [];
  startMemoryExtractionWorker({
    queue,
    memory: memory.service,
    model: createOpenAICompatible({ baseURL: model.baseUrl, name: 'scripted' })('cheap-model'),
    onExtracted: (report) => completions.push(report),
  });
  await expect.poll(() => completions.length, { timeout: 15_000 }).toBe(1);
  await new Promise((resolve) => setTimeout(resolve, 1_500));

  const memories = await memory.service.list({ userId: 'web:ana' });
  return {
    completions,
    memories,
    counts: await queue.counts({ name: MEMORY_EXTRACT_JOB }),
    adds: memory.adds(),
  };
}

describe('a worker killed in the middle of an extraction job', () => {
  it('with the embedded SQLite queue: the job completes exactly once after restart, no memory is duplicated', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'nexus-crash-'));
    cleanups.push(() => rm(directory, { recursive: true, force: true }));

    const result = await crashMidJobThenRestart({ kind: 'sqlite', path: join(directory, 'jobs.sqlite') });

    expect(result.completions).toHaveLength(1);
    expect(result.completions[0]?.attempt).toBe(2);
    expect(result.memories.map((memory) => memory.content).sort()).toEqual([
      'Is vegetarian',
      'Lives in Lisbon',
    ]);
    expect(result.counts).toMatchObject({ completed: 1, parked: 0, active: 0, waiting: 0 });
  });

  it('with BullMQ on Redis: the job completes exactly once after restart, no memory is duplicated', async () => {
    const result = await crashMidJobThenRestart({
      kind: 'bullmq',
      url: 'redis://127.0.0.1:6379',
      prefix: `nexus-crash-${randomUUID().slice(0, 8)}`,
    });

    expect(result.completions).toHaveLength(1);
    expect(result.completions[0]?.attempt).toBe(2);
    expect(result.memories.map((memory) => memory.content).sort()).toEqual([
      'Is vegetarian',
      'Lives in Lisbon',
    ]);
    expect(result.counts).toMatchObject({ completed: 1, parked: 0, active: 0, waiting: 0 });
  });
});
