// pnpm bench:gateway [--conversations 200] [--turns 10] [--connections 20] [--runs 1] [--warmup-turns 20] [--cpu-prof-dir dir] [--heap-profile file] [--node-flags '...'] [--gateway-env 'NAME=value ...']
// Web-socket clients drive the whole gateway (a separate process, so its RSS is its own) against a
// zero-latency scripted model in this process. Overhead = client round trip minus the model
// server's own time for that request: everything the gateway adds (intake, lanes, SQLite, the AI
// SDK's HTTP client, streaming, web-socket delivery). `--runs N` repeats the whole run (a fresh
// gateway each time) and prints each run, then the median and range of every figure: on a shared
// 2-core machine one run of the same commit can be a third slower than the next.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { percentile, printTable, round } from './bench-stats.ts';
import { type GatewayBenchResult, runGatewayBench } from './gateway-bench-run.ts';

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
    /** Whole runs, each with a fresh gateway; more than one prints medians and ranges. */
    runs: { type: 'string', default: '1' },
    /** Turns before the measured load; the default, one per connection, leaves V8 mostly cold. */
    'warmup-turns': { type: 'string' },
    /** Writes a V8 CPU profile of the gateway process into this directory. */
    'cpu-prof-dir': { type: 'string' },
    /** Node/V8 flags of the gateway process; `--node-flags=` runs it with Node's defaults. */
    'node-flags': { type: 'string', default: PRODUCTION_NODE_FLAGS },
    /** Environment of the gateway process (`NAME=value`, space-separated); `--gateway-env=` for none. */
    'gateway-env': { type: 'string', default: PRODUCTION_ENV },
    /** Writes a heap snapshot of the gateway (into its working directory) after the load. */
    'heap-snapshot': { type: 'boolean', default: false },
    /**
     * Writes a sampling heap profile of the gateway over the load window (garbage included) to
     * this file, `-runN` added before the extension when there are several runs; read it with
     * `node bench/heap-profile-summary.ts FILE --per TURNS`.
     */
    'heap-profile': { type: 'string' },
  },
});
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1)
  throw new Error(`--runs must be a whole number ≥ 1, got ${values.runs}`);
const conversations = Number(values.conversations);

const results: GatewayBenchResult[] = [];
for (let run = 1; run <= runs; run += 1) {
  const result = await runGatewayBench({
    conversations,
    turnsPerConversation: Number(values.turns),
    connections: Math.min(Number(values.connections), conversations),
    warmupTurns: Number(values['warmup-turns'] ?? Math.min(Number(values.connections), conversations)),
    nodeFlags: values['node-flags'],
    gatewayEnv: values['gateway-env'],
    cpuProfileDir: values['cpu-prof-dir'],
    heapSnapshot: values['heap-snapshot'],
    heapProfileFile:
      values['heap-profile'] === undefined
        ? undefined
        : resolve(
            runs > 1
              ? values['heap-profile'].replace(/(\.[^./]*)?$/u, `-run${run}$1`)
              : values['heap-profile'],
          ),
  });
  results.push(result);
  if (runs === 1) printRun(result);
  else process.stdout.write(`${JSON.stringify({ run, ...result.figures })}\n`);
}
if (runs > 1) printMedians(results);

function printRun({ figures: result, details }: GatewayBenchResult): void {
  printTable([
    ['conversations', result.conversations],
    ['web-socket connections', details.connections],
    ['turns', result.turns],
    ['elapsed (s)', round(details.elapsedS)],
    [
      'machine load (1 min) at start / end',
      `${result.load_average_1m_before} / ${result.load_average_1m_after}`,
    ],
    ['turns/s', result.turns_per_s],
    ['overhead p50 (ms)', result.overhead_p50_ms],
    ['overhead p95 (ms)', result.overhead_p95_ms],
    ['overhead p99 (ms)', result.overhead_p99_ms],
    [
      `  p95 of the ${details.steadyTurns} turns sent after the load's first second (ms)`,
      Number.isNaN(result.overhead_p95_after_first_s_ms)
        ? '— (the load ended within it)'
        : result.overhead_p95_after_first_s_ms,
    ],
    ['gateway CPU per turn (ms)', result.gateway_cpu_ms_per_turn],
    [
      '  main thread / other threads (V8 GC and compiler, libuv) (ms)',
      `${result.gateway_main_thread_cpu_ms_per_turn} / ${result.gateway_other_threads_cpu_ms_per_turn}`,
    ],
    ['  with the memory extraction each turn queued (ms)', result.gateway_cpu_ms_per_turn_with_extraction],
    ['  extraction backlog: run after the last reply (s)', result.extraction_backlog_s],
    ['bench process CPU per turn: model server + clients (ms)', result.bench_process_cpu_ms_per_turn],
    ['gateway heap allocated per turn (KB)', result.allocated_kb_per_turn],
    ['  GC pause per turn (ms)', result.gc_ms_per_turn],
    ['gateway ready after spawn (ms)', result.ready_ms],
    ['  CPU used to get ready (ms)', result.ready_cpu_ms],
    ['gateway idle RSS (MB)', result.idle_rss_mb],
    [
      '  idle V8 heap used / total (MB)',
      `${round(details.idleHeap.heapUsed, 1)} / ${round(details.idleHeap.heapTotal, 1)}`,
    ],
    ['  idle native: RSS - heap total (MB)', round(result.idle_rss_mb - details.idleHeap.heapTotal, 1)],
    ['    of which file-backed (node binary) (MB)', round(details.idleFileMb, 1)],
    ['gateway peak RSS, load and extraction backlog (MB)', result.peak_rss_mb],
    ['gateway RSS at end (MB)', round(details.endRssMb, 1)],
    [
      '  heap used / total at end (MB)',
      `${round(details.endHeap.heapUsed, 1)} / ${round(details.endHeap.heapTotal, 1)}`,
    ],
    ['  external memory at end (MB)', round(details.endHeap.external, 1)],
    ['  native at end: RSS - heap total (MB)', round(details.endRssMb - details.endHeap.heapTotal, 1)],
    ['    of which file-backed (node binary) (MB)', round(details.endFileMb, 1)],
  ]);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

/** Each figure's median over the runs, then its lowest and highest; the last line is the medians as JSON. */
function printMedians(all: GatewayBenchResult[]): void {
  const names = Object.keys(all[0]!.figures) as (keyof GatewayBenchResult['figures'])[];
  const medians: Record<string, number> = { runs: all.length };
  const rows: [string, string][] = [];
  for (const name of names) {
    // NaN (no turn was sent after the load's first second) is left out, so a median stays one.
    const values = all.map((result) => result.figures[name]).filter((value) => !Number.isNaN(value));
    if (values.length === 0) {
      rows.push([name, '—']);
      continue;
    }
    // By nearest rank, as the bench's other percentiles: with an even number of runs, the lower middle.
    const median = percentile(values, 50);
    medians[name] = median;
    rows.push([name, `${median}  (${Math.min(...values)} – ${Math.max(...values)})`]);
  }
  process.stdout.write(`median (lowest – highest) of ${all.length} runs\n`);
  printTable(rows);
  process.stdout.write(`${JSON.stringify(medians)}\n`);
}
