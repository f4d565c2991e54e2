// pnpm bench:scale [--conversations 64] [--turns 8] [--concurrency 4] [--latency 50]
// Turns per second through a gateway process with 1, then 2 worker processes on this machine's
// Redis, against a scripted model that waits `--latency` ms before answering. Each worker runs at
// most `--concurrency` agent runs at a time, so one worker caps throughput near
// concurrency / latency and a second one should lift it, as long as the gateway and the machine
// keep up. Web-socket clients drive the gateway like browsers; every reply is checked.
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { startScriptedModelServer } from '@nexus/testkit/llm';
import { WebChatClient } from '@nexus/testkit/web-chat';
import { metricValue, Stack } from '../tests/stack/stack-processes.ts';
import { printTable, round } from './bench-stats.ts';
import { processCpuMs } from './process-cpu-ms.ts';

const { values } = parseArgs({
  options: {
    conversations: { type: 'string', default: '64' },
    turns: { type: 'string', default: '8' },
    concurrency: { type: 'string', default: '4' },
    latency: { type: 'string', default: '50' },
    connections: { type: 'string', default: '16' },
  },
});
const conversations = Number(values.conversations);
const turnsPerConversation = Number(values.turns);
const workerConcurrency = Number(values.concurrency);
const latencyMs = Number(values.latency);
const connections = Math.min(Number(values.connections), conversations);
const token = 'bench-token-0123456789abcdef';

const model = await startScriptedModelServer({ latencyMs, recordRequests: false });

interface Round {
  workers: number;
  turns: number;
  elapsedS: number;
  turnsPerS: number;
  runsPerWorker: number[];
  /** CPU time (user + system) per turn of the measured phase, gateway and workers summed. */
  gatewayCpuMsPerTurn: number;
  workerCpuMsPerTurn: number;
}

async function measure(workerCount: number): Promise<Round> {
  const stack = new Stack({
    modelBaseUrl: model.baseUrl,
    token,
    env: {
      NEXUS_WORKER_CONCURRENCY: String(workerConcurrency),
      NEXUS_MAX_CONCURRENT_TURNS: String(Math.max(64, conversations)),
    },
  });
  try {
    const [gateway, ...workers] = await Promise.all([
      stack.start('gateway'),
      ...Array.from({ length: workerCount }, () => stack.start('worker')),
    ]);
    const clients = await Promise.all(
      Array.from({ length: connections }, () => WebChatClient.connect({ url: gateway!.url, token })),
    );
    // Warm-up: JIT, connections, BullMQ scripts loaded in Redis.
    await Promise.all(clients.map((client, index) => client.ask(`warmup-${index}`, 'warm up')));
    const warmupRuns = await Promise.all(
      workers.map((worker) => metricValue(worker.url, 'nexus_agent_runs_total{outcome="ok"}')),
    );

    const cpuBefore = await Promise.all(
      [gateway, ...workers].map((started) => processCpuMs(started!.child.pid)),
    );
    const startedAt = performance.now();
    await Promise.all(
      Array.from({ length: conversations }, async (_, conversation) => {
        const client = clients[conversation % connections]!;
        for (let turn = 0; turn < turnsPerConversation; turn += 1) {
          const text = `bench c${conversation} t${turn}`;
          const reply = await client.ask(`bench-${conversation}`, text);
          if (reply.text !== `Echo: ${text}`) throw new Error(`unexpected reply ${JSON.stringify(reply)}`);
        }
      }),
    );
    const elapsedS = (performance.now() - startedAt) / 1000;
    const cpuAfter = await Promise.all(
      [gateway, ...workers].map((started) => processCpuMs(started!.child.pid)),
    );
    const cpuUsed = cpuAfter.map((after, index) => after - (cpuBefore[index] ?? 0));
    const runsPerWorker = await Promise.all(
      workers.map(async (worker, index) => {
        const runs = await metricValue(worker.url, 'nexus_agent_runs_total{outcome="ok"}');
        return runs - (warmupRuns[index] ?? 0);
      }),
    );
    await Promise.all(clients.map((client) => client.close()));
    const turns = conversations * turnsPerConversation;
    return {
      workers: workerCount,
      turns,
      elapsedS,
      turnsPerS: turns / elapsedS,
      runsPerWorker,
      gatewayCpuMsPerTurn: (cpuUsed[0] ?? 0) / turns,
      workerCpuMsPerTurn: cpuUsed.slice(1).reduce((sum, used) => sum + used, 0) / turns,
    };
  } finally {
    await stack.close();
  }
}

const one = await measure(1);
const two = await measure(2);
await model.close();

printTable([
  ['model latency (ms)', latencyMs],
  ['agent runs per worker at once', workerConcurrency],
  ['conversations × turns', `${conversations} × ${turnsPerConversation}`],
  ['web-socket connections', connections],
  ['1 worker: turns/s', round(one.turnsPerS, 1)],
  ['1 worker: elapsed (s)', round(one.elapsedS)],
  ['2 workers: turns/s', round(two.turnsPerS, 1)],
  ['2 workers: elapsed (s)', round(two.elapsedS)],
  ['2 workers: runs per worker', two.runsPerWorker.join(' / ')],
  ['ceiling per worker (turns/s)', round((workerConcurrency * 1000) / latencyMs, 1)],
  [
    'gateway CPU per turn (ms)',
    `${round(one.gatewayCpuMsPerTurn, 1)} / ${round(two.gatewayCpuMsPerTurn, 1)}`,
  ],
  ['worker CPU per turn (ms)', `${round(one.workerCpuMsPerTurn, 1)} / ${round(two.workerCpuMsPerTurn, 1)}`],
  ['CPUs on this machine', availableParallelism()],
]);
process.stdout.write(
  `${JSON.stringify({
    turns_per_s_1_worker: round(one.turnsPerS, 1),
    turns_per_s_2_workers: round(two.turnsPerS, 1),
    speedup: round(two.turnsPerS / one.turnsPerS, 2),
    gateway_cpu_ms_per_turn: round(two.gatewayCpuMsPerTurn, 1),
    worker_cpu_ms_per_turn: round(two.workerCpuMsPerTurn, 1),
    model_latency_ms: latencyMs,
    worker_concurrency: workerConcurrency,
    turns: one.turns,
  })}\n`,
);
