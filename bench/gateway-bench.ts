// pnpm bench:gateway [--conversations 200] [--turns 10] [--connections 20] [--cpu-prof-dir dir] [--node-flags '...'] [--gateway-env 'NAME=value ...']
// Web-socket clients drive the whole gateway (a separate process, so its RSS is its own) against a
// zero-latency scripted model in this process. Overhead = client round trip minus the model
// server's own time for that request: everything the gateway adds (intake, lanes, SQLite, the AI
// SDK's HTTP client, streaming, web-socket delivery).
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { freePort } from '@nexus/testkit';
import { startScriptedModelServer } from '@nexus/testkit/llm';
import { WebChatClient } from '@nexus/testkit/web-chat';
import { TraceGcTotals } from './allocation-meter.ts';
import { percentile, printTable, round } from './bench-stats.ts';
import { processCpuMs } from './process-cpu-ms.ts';

/**
 * The production start path's Node flags (the Dockerfile's NODE_OPTIONS, `pnpm start`): an 8 MB
 * young generation and a 192 MB old-space limit, under which V8 sizes the heap far more tightly.
 * See docs/deployment.md ("Memory") for the measurements behind them.
 */
const PRODUCTION_NODE_FLAGS = '--max-semi-space-size=8 --max-old-space-size=192';
/**
 * The production start path's environment beyond the flags (the Dockerfile's ENV, `pnpm start`):
 * two glibc malloc arenas, so V8's background threads do not each keep freed memory.
 */
const PRODUCTION_ENV = 'MALLOC_ARENA_MAX=2';

const { values } = parseArgs({
  options: {
    conversations: { type: 'string', default: '200' },
    turns: { type: 'string', default: '10' },
    connections: { type: 'string', default: '20' },
    /** Writes a V8 CPU profile of the gateway process into this directory. */
    'cpu-prof-dir': { type: 'string' },
    /** Node/V8 flags of the gateway process; `--node-flags=` runs it with Node's defaults. */
    'node-flags': { type: 'string', default: PRODUCTION_NODE_FLAGS },
    /** Environment of the gateway process (`NAME=value`, space-separated); `--gateway-env=` for none. */
    'gateway-env': { type: 'string', default: PRODUCTION_ENV },
    /** Writes a heap snapshot of the gateway (into its working directory) after the load. */
    'heap-snapshot': { type: 'boolean', default: false },
  },
});
const conversations = Number(values.conversations);
const turnsPerConversation = Number(values.turns);
const connections = Math.min(Number(values.connections), conversations);
const token = 'bench-token-0123456789abcdef';

const model = await startScriptedModelServer();
// Memory extraction runs after every turn as in production; the scripted model answers it with
// "no facts", so the background work is real but cheap, and chat turns get the usual echo.
const scriptResponses = () =>
  model.setResponder((request) => {
    const system = request.messages.find((message) => message.role === 'system');
    if (typeof system?.content === 'string' && system.content.startsWith('You extract'))
      return { text: '{"facts": []}' };
    const last = request.messages.at(-1);
    const text = `Echo: ${typeof last?.content === 'string' ? last.content : ''}`;
    return { chunks: text.split(/(?<= )/) };
  });
scriptResponses();
const dataDir = await mkdtemp(join(tmpdir(), 'nexus-bench-'));
const port = await freePort();
const profileArgs = [
  ...values['node-flags'].split(' ').filter(Boolean),
  ...(values['cpu-prof-dir'] ? ['--cpu-prof', '--cpu-prof-dir', values['cpu-prof-dir']] : []),
  ...(values['heap-snapshot'] ? ['--heapsnapshot-signal=SIGUSR2'] : []),
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
      ...Object.fromEntries(
        values['gateway-env']
          .split(' ')
          .filter(Boolean)
          .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
      ),
      NEXUS_PORT: String(port),
      NEXUS_DATA_DIR: dataDir,
      NEXUS_WEB_TOKEN: token,
      NEXUS_MODEL_PROVIDER: 'openai-compatible',
      NEXUS_MODEL_BASE_URL: model.baseUrl,
      NEXUS_MODEL: 'scripted',
      NEXUS_WEB_MESSAGES_PER_MINUTE: '1000000',
      NEXUS_LOG_LEVEL: 'warn',
      NEXUS_LOG_PRETTY: 'false',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
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
const readyCpuMs = await readFile(`/proc/${gateway.pid}/stat`, 'utf8').then(
  (stat) => {
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  },
  () => Number.NaN,
);

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
const roundTrips = new Map<string, number>();

async function runConversation(index: number): Promise<void> {
  const client = clients[index % connections]!;
  for (let turn = 0; turn < turnsPerConversation; turn += 1) {
    const text = `bench c${index} t${turn}`;
    const started = performance.now();
    const reply = await client.ask(`bench-${index}`, text);
    if (reply.text !== `Echo: ${text}`) throw new Error(`unexpected reply ${JSON.stringify(reply)}`);
    roundTrips.set(text, performance.now() - started);
  }
}

// Warm-up: JIT, SQLite caches, keep-alive sockets.
await Promise.all(clients.map((client, index) => client.ask(`warmup-${index}`, 'warm up')));
model.reset();
scriptResponses();
// The machine's 1-minute load average as the load starts and ends (the figures come
// with it): on a shared 2-core machine the same commit runs up to a third slower in a busy minute.
const loadBefore = loadavg()[0] as number;
const cpuBefore = await processCpuMs(gateway.pid);
const benchCpuBefore = process.cpuUsage();
const gcBefore = gcTotals.snapshot();
const startedAt = performance.now();
await Promise.all(Array.from({ length: conversations }, (_, index) => runConversation(index)));
const elapsedS = (performance.now() - startedAt) / 1000;
const loadAfter = loadavg()[0] as number;
const cpuUsedMs = (await processCpuMs(gateway.pid)) - cpuBefore;
// This process's own share (the scripted model server and the web-socket clients): on a 2-core
// machine it bounds throughput too, since both processes share the cores.
const benchCpu = process.cpuUsage(benchCpuBefore);
const benchCpuMs = (benchCpu.user + benchCpu.system) / 1000;
// The trace lines of the last collections may still be in the pipe.
await new Promise((resolve) => setTimeout(resolve, 200));
const gcAfter = gcTotals.snapshot();

const overheads: number[] = [];
for (const request of model.chatRequests()) {
  if (JSON.stringify(request.body).includes('You extract')) continue;
  const messages = (request.body as { messages: { role: string; content: unknown }[] }).messages;
  const last = messages.at(-1);
  const text = typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content);
  const roundTrip = roundTrips.get(text);
  if (roundTrip === undefined || request.finishedAt === undefined) continue;
  overheads.push(roundTrip - (request.finishedAt - request.receivedAt));
}

const endHeap = await gatewayHeapMb();
const endRssMb = await gatewayMemoryMb('VmRSS');
const endFileMb = await gatewayMemoryMb('RssFile');
const peakRssMb = await gatewayMemoryMb('VmHWM');
await Promise.all(clients.map((client) => client.close()));
if (values['heap-snapshot']) {
  gateway.kill('SIGUSR2');
  await new Promise((resolve) => setTimeout(resolve, 8000));
}
gateway.kill('SIGTERM');
await new Promise((resolve) => gateway.once('exit', resolve));
await model.close();
await rm(dataDir, { recursive: true, force: true });

const turns = roundTrips.size;
const result = {
  conversations,
  turns,
  turns_per_s: round(turns / elapsedS, 1),
  overhead_p50_ms: round(percentile(overheads, 50)),
  overhead_p95_ms: round(percentile(overheads, 95)),
  overhead_p99_ms: round(percentile(overheads, 99)),
  gateway_cpu_ms_per_turn: round(cpuUsedMs / roundTrips.size),
  bench_process_cpu_ms_per_turn: round(benchCpuMs / roundTrips.size),
  allocated_kb_per_turn: round(
    (gcAfter.allocatedBytes - gcBefore.allocatedBytes) / 1024 / roundTrips.size,
    1,
  ),
  gc_ms_per_turn: round((gcAfter.gcMs - gcBefore.gcMs) / roundTrips.size),
  peak_rss_mb: round(peakRssMb, 1),
  ready_ms: round(readyMs, 0),
  ready_cpu_ms: readyCpuMs,
  idle_rss_mb: round(idleRssMb, 1),
  idle_heap_used_mb: round(idleHeap.heapUsed, 1),
  load_average_1m_before: round(loadBefore),
  load_average_1m_after: round(loadAfter),
};
printTable([
  ['conversations', conversations],
  ['web-socket connections', connections],
  ['turns', turns],
  ['elapsed (s)', round(elapsedS)],
  ['machine load (1 min) at start / end', `${round(loadBefore)} / ${round(loadAfter)}`],
  ['turns/s', result.turns_per_s],
  ['overhead p50 (ms)', result.overhead_p50_ms],
  ['overhead p95 (ms)', result.overhead_p95_ms],
  ['overhead p99 (ms)', result.overhead_p99_ms],
  ['gateway CPU per turn (ms)', result.gateway_cpu_ms_per_turn],
  ['bench process CPU per turn: model server + clients (ms)', result.bench_process_cpu_ms_per_turn],
  ['gateway heap allocated per turn (KB)', result.allocated_kb_per_turn],
  ['  GC pause per turn (ms)', result.gc_ms_per_turn],
  ['gateway ready after spawn (ms)', result.ready_ms],
  ['  CPU used to get ready (ms)', result.ready_cpu_ms],
  ['gateway idle RSS (MB)', result.idle_rss_mb],
  ['  idle V8 heap used / total (MB)', `${round(idleHeap.heapUsed, 1)} / ${round(idleHeap.heapTotal, 1)}`],
  ['  idle native: RSS - heap total (MB)', round(idleRssMb - idleHeap.heapTotal, 1)],
  ['    of which file-backed (node binary) (MB)', round(idleFileMb, 1)],
  ['gateway peak RSS (MB)', result.peak_rss_mb],
  ['gateway RSS at end (MB)', round(endRssMb, 1)],
  ['  heap used / total at end (MB)', `${round(endHeap.heapUsed, 1)} / ${round(endHeap.heapTotal, 1)}`],
  ['  external memory at end (MB)', round(endHeap.external, 1)],
  ['  native at end: RSS - heap total (MB)', round(endRssMb - endHeap.heapTotal, 1)],
  ['    of which file-backed (node binary) (MB)', round(endFileMb, 1)],
]);
process.stdout.write(`${JSON.stringify(result)}\n`);
