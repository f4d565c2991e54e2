// One run of bench:gateway (gateway-bench.ts): a fresh gateway process, its own scripted model and
// data directory, the load, the figures, then everything stopped and removed.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@nexus/testkit';
import { startScriptedModelServer } from '@nexus/testkit/llm';
import { WebChatClient } from '@nexus/testkit/web-chat';
import { TraceGcTotals } from './allocation-meter.ts';
import { percentile, round } from './bench-stats.ts';
import { envPairs } from './env-pairs.ts';
import { processCpuMs, threadCpuMs } from './process-cpu-ms.ts';

export interface GatewayBenchOptions {
  conversations: number;
  turnsPerConversation: number;
  connections: number;
  /**
   * Turns run before the measured load, in conversations of their own, each taking its turns in
   * turn as the load does: JIT, SQLite caches, keep-alive sockets. The default (one per
   * connection) leaves V8 mostly cold; thousands let it finish optimising first.
   */
  warmupTurns: number;
  /** Node/V8 flags of the gateway process, space-separated. */
  nodeFlags: string;
  /** Environment of the gateway process (`NAME=value`, space-separated). */
  gatewayEnv: string;
  cpuProfileDir?: string | undefined;
  heapSnapshot: boolean;
  /** Writes a sampling heap profile of the gateway over the load window here (heap-sampling-preload.mjs). */
  heapProfileFile?: string | undefined;
}

/**
 * Turns sent in the load's first second are left out of the steady-state p95: while they run, V8
 * still executes much of the turn in its lower tiers and grows the heap, and all 200 first turns
 * arrive at once, so that second sets the whole run's tail (docs/throughput.md).
 */
const WARMING_MS = 1000;

/** How long the bench waits, after the last reply, for the load's memory extractions to run. */
const EXTRACTION_DRAIN_LIMIT_MS = 120_000;

export type GatewayBenchResult = Awaited<ReturnType<typeof runGatewayBench>>;

export async function runGatewayBench(options: GatewayBenchOptions) {
  const { conversations, turnsPerConversation, connections } = options;
  const token = 'bench-token-0123456789abcdef';
  const model = await startScriptedModelServer();
  // Memory extraction runs after every turn as in production; the scripted model answers it with
  // "no facts", so the background work is real but cheap, and chat turns get the usual echo.
  /** Extraction requests for the measured load's turns the model has answered so far. */
  let loadExtractions = 0;
  let warmupExtractions = 0;
  const scriptResponses = () =>
    model.setResponder((request) => {
      const system = request.messages.find((message) => message.role === 'system');
      if (typeof system?.content === 'string' && system.content.startsWith('You extract')) {
        const about = JSON.stringify(request.messages.at(-1)?.content);
        if (about.includes('bench c')) loadExtractions += 1;
        else if (about.includes('warmup')) warmupExtractions += 1;
        return { text: '{"facts": []}' };
      }
      const last = request.messages.at(-1);
      const text = `Echo: ${typeof last?.content === 'string' ? last.content : ''}`;
      return { chunks: text.split(/(?<= )/) };
    });
  scriptResponses();
  if (options.heapProfileFile && options.heapSnapshot)
    throw new Error('--heap-profile and --heap-snapshot both use SIGUSR2: take one at a time');
  const dataDir = await mkdtemp(join(tmpdir(), 'nexus-bench-'));
  const port = await freePort();
  const profileArgs = [
    ...options.nodeFlags.split(' ').filter(Boolean),
    ...(options.cpuProfileDir ? ['--cpu-prof', '--cpu-prof-dir', options.cpuProfileDir] : []),
    ...(options.heapSnapshot ? ['--heapsnapshot-signal=SIGUSR2'] : []),
    ...(options.heapProfileFile
      ? [`--import=${fileURLToPath(new URL('./heap-sampling-preload.mjs', import.meta.url))}`]
      : []),
    // Every collection prints a line with the bytes allocated since the previous one (read below).
    '--trace-gc-nvp',
  ];
  const spawnedAt = performance.now();
  const gateway = spawn(
    process.execPath,
    [...profileArgs, fileURLToPath(new URL('../apps/gateway/bin/nexus.mjs', import.meta.url)), 'start'],
    {
      env: {
        ...process.env,
        ...envPairs(options.gatewayEnv),
        NEXUS_PORT: String(port),
        NEXUS_DATA_DIR: dataDir,
        NEXUS_WEB_TOKEN: token,
        NEXUS_MODEL_PROVIDER: 'openai-compatible',
        NEXUS_MODEL_BASE_URL: model.baseUrl,
        NEXUS_MODEL: 'scripted',
        NEXUS_WEB_MESSAGES_PER_MINUTE: '1000000',
        NEXUS_LOG_LEVEL: 'warn',
        NEXUS_LOG_PRETTY: 'false',
        ...(options.heapProfileFile ? { NEXUS_BENCH_HEAP_PROFILE: options.heapProfileFile } : {}),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  // A run that fails (a reply that is not the echo) must not leave the gateway running.
  const stopOnExit = () => {
    gateway.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  };
  process.once('exit', stopOnExit);
  const gcTotals = new TraceGcTotals();
  gateway.stdout?.setEncoding('utf8');
  gateway.stdout?.on('data', (chunk: string) => process.stderr.write(gcTotals.feed(chunk)));
  const url = `http://127.0.0.1:${port}`;
  for (let attempt = 0; ; attempt += 1) {
    const ready = await fetch(`${url}/ready`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) break;
    if (attempt > 1000) throw new Error('gateway did not become ready');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  // From spawning `node apps/gateway/bin/nexus.mjs start` to the first 200 from /ready (10 ms polling).
  const readyMs = performance.now() - spawnedAt;
  // CPU the gateway spent to get there (user + system, /proc clock ticks of 10 ms): unlike the
  // wall-clock time, it hardly moves when other work shares the machine.
  const readyCpuMs = await processCpuMs(gateway.pid);

  /**
   * Resident set (VmRSS), its peak (VmHWM), or its file-backed part (RssFile: mostly the `node`
   * binary's own code, shared with every Node process) of the gateway process, in MiB, from /proc.
   */
  async function gatewayMemoryMb(field: 'VmRSS' | 'VmHWM' | 'RssFile'): Promise<number> {
    const status = await readFile(`/proc/${gateway.pid}/status`, 'utf8').catch(() => '');
    return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? Number.NaN) / 1024;
  }
  /** The gateway's own V8 figures from /metrics, in MiB: heap used and total, external. */
  async function gatewayHeapMb(): Promise<{ heapUsed: number; heapTotal: number; external: number }> {
    const text = await (await fetch(`${url}/metrics`)).text();
    const metric = (name: string) =>
      Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN) / 1048576;
    return {
      heapUsed: metric('nexus_nodejs_heap_size_used_bytes'),
      heapTotal: metric('nexus_nodejs_heap_size_total_bytes'),
      external: metric('nexus_nodejs_external_memory_bytes'),
    };
  }
  // Idle: started, nobody connected yet, two seconds to settle (start-up garbage collected or not).
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const idleRssMb = await gatewayMemoryMb('VmRSS');
  const idleFileMb = await gatewayMemoryMb('RssFile');
  const idleHeap = await gatewayHeapMb();

  const clients = await Promise.all(
    Array.from({ length: connections }, () => WebChatClient.connect({ url, token })),
  );
  /** Per turn text: when it was sent (ms after the load started) and its client round trip. */
  const sent = new Map<string, { at: number; roundTrip: number }>();
  let startedAt = 0;

  async function runConversation(
    name: string,
    index: number,
    turns: number,
    measured: boolean,
  ): Promise<void> {
    const client = clients[index % connections]!;
    for (let turn = 0; turn < turns; turn += 1) {
      const text = `${name} c${index} t${turn}`;
      const started = performance.now();
      const reply = await client.ask(`${name}-${index}`, text);
      if (reply.text !== `Echo: ${text}`) throw new Error(`unexpected reply ${JSON.stringify(reply)}`);
      if (measured) sent.set(text, { at: started - startedAt, roundTrip: performance.now() - started });
    }
  }

  // The warm-up takes the load's shape (up to `conversations` at once, up to `turnsPerConversation`
  // turns each), in waves of new conversations: no conversation grows longer than the measured
  // ones, so none reaches the per-person daily token budget.
  let warmupTurnsRun = 0;
  for (let wave = 0; warmupTurnsRun < options.warmupTurns; wave += 1) {
    const left = options.warmupTurns - warmupTurnsRun;
    const waveConversations = Math.min(left, conversations);
    const waveTurns = Math.min(turnsPerConversation, Math.ceil(left / waveConversations));
    await Promise.all(
      Array.from({ length: waveConversations }, (_, index) =>
        runConversation(`warmup${wave}`, index, waveTurns, false),
      ),
    );
    warmupTurnsRun += waveConversations * waveTurns;
  }
  // The warm-up's extractions run before the load starts, as in a gateway that has been up a
  // while: neither their CPU nor their backlog is the load's.
  await untilCounted(() => warmupExtractions, warmupTurnsRun, 'warm-up');
  model.reset();
  scriptResponses();
  // The machine's 1-minute load average as the load starts and ends (the figures come
  // with it): on a shared 2-core machine the same commit runs up to a third slower in a busy minute.
  const loadBefore = loadavg()[0] as number;
  const cpuBefore = await processCpuMs(gateway.pid);
  const threadsBefore = await threadCpuMs(gateway.pid);
  const benchCpuBefore = process.cpuUsage();
  const gcBefore = gcTotals.snapshot();
  if (options.heapProfileFile) {
    // Sampling starts before the load's first turn (the signal is handled on the gateway's loop).
    gateway.kill('SIGUSR2');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  startedAt = performance.now();
  // The gateway's CPU profile is stamped with the same monotonic clock (µs): the window lets
  // `bench/cpu-profile-summary.ts` read the load's samples only.
  const loadStartUs = process.hrtime.bigint() / 1000n;
  await Promise.all(
    Array.from({ length: conversations }, (_, index) =>
      runConversation('bench', index, turnsPerConversation, true),
    ),
  );
  const elapsedS = (performance.now() - startedAt) / 1000;
  if (options.cpuProfileDir) {
    const window = {
      startUs: Number(loadStartUs),
      endUs: Number(process.hrtime.bigint() / 1000n),
      turns: sent.size,
    };
    await mkdir(options.cpuProfileDir, { recursive: true });
    await writeFile(join(options.cpuProfileDir, `load-window-${gateway.pid}.json`), JSON.stringify(window));
  }
  // The profile covers the load's turns, not the extraction backlog that follows.
  if (options.heapProfileFile) gateway.kill('SIGUSR2');
  const loadAfter = loadavg()[0] as number;
  const cpuUsedMs = (await processCpuMs(gateway.pid)) - cpuBefore;
  const threadsAfter = await threadCpuMs(gateway.pid);
  // This process's own share (the scripted model server and the web-socket clients): on a 2-core
  // machine it bounds throughput too, since both processes share the cores.
  const benchCpu = process.cpuUsage(benchCpuBefore);
  const benchCpuMs = (benchCpu.user + benchCpu.system) / 1000;
  // The trace lines of the last collections may still be in the pipe.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const gcAfter = gcTotals.snapshot();

  const overheads: number[] = [];
  const steadyOverheads: number[] = [];
  for (const request of model.chatRequests()) {
    if (JSON.stringify(request.body).includes('You extract')) continue;
    const messages = (request.body as { messages: { role: string; content: unknown }[] }).messages;
    const last = messages.at(-1);
    const text = typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content);
    const turn = sent.get(text);
    if (turn === undefined || request.finishedAt === undefined) continue;
    const overhead = turn.roundTrip - (request.finishedAt - request.receivedAt);
    overheads.push(overhead);
    if (turn.at >= WARMING_MS) steadyOverheads.push(overhead);
  }

  const endHeap = await gatewayHeapMb();
  const endRssMb = await gatewayMemoryMb('VmRSS');
  const endFileMb = await gatewayMemoryMb('RssFile');

  // Each turn also queued a memory extraction. While turns wait for a slot, extraction steps
  // aside (core's replies-first), so under this load most of it runs after the last reply: its
  // CPU is part of what a turn costs, so the bench waits for it and counts it separately.
  const turns = sent.size;
  const loadEndedAt = performance.now();
  await untilCounted(() => loadExtractions, turns, 'load');
  const extractionBacklogS = (performance.now() - loadEndedAt) / 1000;
  // The job's completion is written in the next pump after the answer.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const cpuWithExtractionMs = (await processCpuMs(gateway.pid)) - cpuBefore;
  // The peak over the load and the extraction backlog.
  const peakRssMb = await gatewayMemoryMb('VmHWM');
  await Promise.all(clients.map((client) => client.close()));
  if (options.heapSnapshot) {
    gateway.kill('SIGUSR2');
    await new Promise((resolve) => setTimeout(resolve, 8000));
  }
  process.off('exit', stopOnExit);
  gateway.kill('SIGTERM');
  await new Promise((resolve) => gateway.once('exit', resolve));
  await model.close();
  await rm(dataDir, { recursive: true, force: true });

  // The main thread runs the turns; V8's worker threads collect garbage (parallel scavenges,
  // concurrent marking, sweeping) and compile optimised code beside it, on the same two cores.
  const mainThreadMs = threadsAfter.mainThreadMs - threadsBefore.mainThreadMs;
  return {
    figures: {
      conversations,
      turns,
      turns_per_s: round(turns / elapsedS, 1),
      overhead_p50_ms: round(percentile(overheads, 50)),
      overhead_p95_ms: round(percentile(overheads, 95)),
      overhead_p99_ms: round(percentile(overheads, 99)),
      overhead_p95_after_first_s_ms: round(percentile(steadyOverheads, 95)),
      gateway_cpu_ms_per_turn: round(cpuUsedMs / turns),
      gateway_cpu_ms_per_turn_with_extraction: round(cpuWithExtractionMs / turns),
      extraction_backlog_s: round(extractionBacklogS, 1),
      gateway_main_thread_cpu_ms_per_turn: round(mainThreadMs / turns),
      gateway_other_threads_cpu_ms_per_turn: round(
        (threadsAfter.otherThreadsMs - threadsBefore.otherThreadsMs) / turns,
      ),
      bench_process_cpu_ms_per_turn: round(benchCpuMs / turns),
      allocated_kb_per_turn: round((gcAfter.allocatedBytes - gcBefore.allocatedBytes) / 1024 / turns, 1),
      gc_ms_per_turn: round((gcAfter.gcMs - gcBefore.gcMs) / turns),
      peak_rss_mb: round(peakRssMb, 1),
      ready_ms: round(readyMs, 0),
      ready_cpu_ms: readyCpuMs,
      idle_rss_mb: round(idleRssMb, 1),
      idle_heap_used_mb: round(idleHeap.heapUsed, 1),
      load_average_1m_before: round(loadBefore),
      load_average_1m_after: round(loadAfter),
    },
    details: {
      connections,
      elapsedS,
      steadyTurns: steadyOverheads.length,
      idleHeap,
      idleFileMb,
      endHeap,
      endRssMb,
      endFileMb,
    },
  };
}

/** Waits until the model has answered `expected` extraction requests; throws after the limit. */
async function untilCounted(counted: () => number, expected: number, what: string): Promise<void> {
  const startedAt = performance.now();
  while (counted() < expected) {
    if (performance.now() - startedAt > EXTRACTION_DRAIN_LIMIT_MS)
      throw new Error(
        `only ${counted()} of the ${what}'s ${expected} extractions ran within ${EXTRACTION_DRAIN_LIMIT_MS} ms`,
      );
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
