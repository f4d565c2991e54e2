// `pnpm bench:floor [--turns 200] [--warmup 200] [--rounds 4] [--gateway-env 'NAME=value ...']`:
// a warm Nexus turn against the floor. One web-chat client sends turns one after another to a
// Nexus gateway (the `pnpm start` process and V8 flags, every store embedded, memory on, plus the
// settings of `--gateway-env`), and another client sends the same turns to a bare relay
// (bench/bare-relay.ts: frame in, streamed completion, deltas out, nothing stored), both against
// the same zero-latency scripted model in the same run. A third client sends them to the same
// relay taking the completion through the AI SDK as Nexus's agent does (`via: 'ai-sdk'`), so the
// SDK's own part of the gap is printed beside it. A fourth sends them to the bare relay running as
// a process of its own, as the gateway does (bench/bare-relay-process.ts): the same relay, plus the
// wake-ups of a second process. The four are measured in alternating blocks so that the machine's
// changing speed hits them alike. Prints each side's p50 / p95, the ratio of Nexus's p50 to each
// relay's, the load average, and one JSON line last.
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startScriptedModelServer } from '@nexus/testkit/llm';
import { WebChatClient } from '@nexus/testkit/web-chat';
import { WebSocket } from 'ws';
import { startGatewayProcess } from '../apps/gateway/src/testing/gateway-process.ts';
import { memoryAwareResponder } from '../apps/gateway/src/testing/memory-test-support.ts';
import { startBareRelay } from './bare-relay.ts';
import { startBareRelayProcess } from './bare-relay-process.ts';
import { percentile, printTable, round } from './bench-stats.ts';
import { envPairs } from './env-pairs.ts';

const { values } = parseArgs({
  options: {
    turns: { type: 'string', default: '200' },
    warmup: { type: 'string', default: '200' },
    rounds: { type: 'string', default: '4' },
    /** More settings for the gateway (`NAME=value`, space-separated), e.g. `NEXUS_MODEL_THREADS=0`. */
    'gateway-env': { type: 'string', default: '' },
  },
});
const turns = Number(values.turns);
const warmupTurns = Number(values.warmup);
const rounds = Number(values.rounds);
if (![turns, warmupTurns, rounds].every((value) => Number.isInteger(value) && value > 0)) {
  throw new Error('--turns, --warmup and --rounds take positive whole numbers');
}

const TOKEN = 'floor-bench-token-0123456789abcdef';
const model = await startScriptedModelServer({ recordRequests: false });
model.setResponder(memoryAwareResponder);
const relay = await startBareRelay({ modelBaseUrl: model.baseUrl, model: 'scripted' });
const sdkRelay = await startBareRelay({ modelBaseUrl: model.baseUrl, model: 'scripted', via: 'ai-sdk' });
const NODE_ARGS = ['--max-semi-space-size=8', '--max-old-space-size=192'];
const relayProcess = await startBareRelayProcess({
  modelBaseUrl: model.baseUrl,
  model: 'scripted',
  nodeArgs: NODE_ARGS,
});
const dataDir = await mkdtemp(join(tmpdir(), 'nexus-floor-'));
const gateway = await startGatewayProcess(
  {
    NEXUS_DATA_DIR: dataDir,
    NEXUS_WEB_TOKEN: TOKEN,
    NEXUS_WEB_MESSAGES_PER_MINUTE: '1000000',
    NEXUS_RATE_LIMIT_PER_MINUTE: '1000000',
    NEXUS_RATE_LIMIT_BURST: '100000',
    NEXUS_DAILY_TOKENS_PER_PERSON: 'off',
    NEXUS_MODEL_PROVIDER: 'openai-compatible',
    NEXUS_MODEL_BASE_URL: model.baseUrl,
    NEXUS_MODEL: 'scripted',
    MALLOC_ARENA_MAX: '2',
    ...envPairs(values['gateway-env']),
  },
  { nodeArgs: NODE_ARGS },
);
const nexus = await WebChatClient.connect({ url: gateway.url, token: TOKEN, clientId: 'floor' });
const relayClient = await connectRelayClient(relay.url);
const sdkRelayClient = await connectRelayClient(sdkRelay.url);
const relayProcessClient = await connectRelayClient(relayProcess.url);

try {
  // A person with memories, so the memory step has something to find on every turn.
  await nexus.ask('floor', "I'm vegetarian and I live in Lisbon");
  const sides = {
    relay: { ask: (text: string) => relayClient.ask(text), times: [] as number[] },
    sdkRelay: { ask: (text: string) => sdkRelayClient.ask(text), times: [] as number[] },
    relayProcess: { ask: (text: string) => relayProcessClient.ask(text), times: [] as number[] },
    nexus: { ask: (text: string) => nexus.ask('floor', text), times: [] as number[] },
  };
  for (let turn = 0; turn < warmupTurns; turn += 1) {
    for (const side of Object.values(sides)) await side.ask(`What should I cook tonight? (${turn})`);
  }
  const perBlock = Math.ceil(turns / rounds);
  for (let round = 0; round < rounds; round += 1) {
    for (const side of Object.values(sides)) {
      for (let turn = 0; turn < perBlock; turn += 1) {
        const started = performance.now();
        await side.ask(`What should I cook tonight? (${round}.${turn})`);
        side.times.push(performance.now() - started);
      }
    }
  }
  const p50 = (times: number[]) => percentile(times, 50);
  const nexusTimes = sides.nexus.times;
  const result = {
    turns: nexusTimes.length,
    warmup_turns: warmupTurns,
    relay_p50_ms: round(p50(sides.relay.times)),
    relay_p95_ms: round(percentile(sides.relay.times, 95)),
    sdk_relay_p50_ms: round(p50(sides.sdkRelay.times)),
    sdk_relay_p95_ms: round(percentile(sides.sdkRelay.times, 95)),
    relay_process_p50_ms: round(p50(sides.relayProcess.times)),
    relay_process_p95_ms: round(percentile(sides.relayProcess.times, 95)),
    nexus_p50_ms: round(p50(nexusTimes)),
    nexus_p95_ms: round(percentile(nexusTimes, 95)),
    ratio_p50: round(p50(nexusTimes) / p50(sides.relay.times)),
    ratio_to_relay_process_p50: round(p50(nexusTimes) / p50(sides.relayProcess.times)),
    sdk_relay_ratio_p50: round(p50(sides.sdkRelay.times) / p50(sides.relay.times)),
    load_average: loadavg().map((value) => round(value)),
  };
  printTable([
    ['turns measured (each side)', result.turns],
    ['bare relay p50 / p95 ms', `${result.relay_p50_ms} / ${result.relay_p95_ms}`],
    ['relay through the AI SDK p50 / p95 ms', `${result.sdk_relay_p50_ms} / ${result.sdk_relay_p95_ms}`],
    [
      'bare relay in its own process p50 / p95 ms',
      `${result.relay_process_p50_ms} / ${result.relay_process_p95_ms}`,
    ],
    ['Nexus warm turn p50 / p95 ms', `${result.nexus_p50_ms} / ${result.nexus_p95_ms}`],
    ['Nexus ÷ relay (p50)', result.ratio_p50],
    ['Nexus ÷ relay in its own process (p50)', result.ratio_to_relay_process_p50],
    ['relay through the AI SDK ÷ relay (p50)', result.sdk_relay_ratio_p50],
    ['load average (1, 5, 15 min)', result.load_average.join(', ')],
  ]);
  process.stdout.write(`${JSON.stringify(result)}\n`);
} finally {
  relayClient.close();
  sdkRelayClient.close();
  relayProcessClient.close();
  await nexus.close();
  await gateway.stop();
  await relay.close();
  await sdkRelay.close();
  await relayProcess.close();
  await model.close();
  await rm(dataDir, { recursive: true, force: true });
}

/** A client of the bare relay: one turn at a time, resolved by the turn's last frame. */
async function connectRelayClient(url: string) {
  const socket = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  let waiting: { id: string; resolve: (text: string) => void; reject: (error: Error) => void } | undefined;
  let nextId = 0;
  socket.on('message', (data) => {
    const frame = JSON.parse(data.toString()) as {
      type: string;
      id?: string;
      text?: string;
      message?: string;
    };
    if (!waiting || frame.id !== waiting.id) return;
    if (frame.type === 'end') waiting.resolve(frame.text ?? '');
    if (frame.type === 'error') waiting.reject(new Error(`relay: ${frame.message}`));
  });
  return {
    ask(text: string): Promise<string> {
      nextId += 1;
      const id = String(nextId);
      return new Promise<string>((resolve, reject) => {
        waiting = { id, resolve, reject };
        socket.send(JSON.stringify({ type: 'message', id, text }));
      });
    },
    close: () => socket.close(),
  };
}
