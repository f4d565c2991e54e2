/**
 * pnpm bench:turn [--turns 400] [--memories 10000,100000] [--session-size 20]
 * Whole turns through the core (intake, lanes, history, memory step, agent over the AI SDK's real
 * HTTP client, delivery, stored turn) against a zero-latency scripted model, for one person with
 * 10k, then 100k memories in the embedded SQLite store (lexical search), once without memory for
 * comparison. Turn overhead = the turn's duration minus the model server's own time for its request.
 * CPU and heap allocation per turn are this process's (core and the in-process scripted model).
 * The person's lexical index is built (and timed) before the turns, as their first message would.
 * The last line is one JSON object.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import {
  createAgent,
  createNexusCore,
  createSqliteSessionStore,
  type NexusCoreOptions,
  sharedTokenCounter,
  type TurnReport,
} from '@nexus/core';
import { contentHash, createSqliteMemoryStore, type Memory, MemoryService } from '@nexus/memory';
import type { ChannelAdapter } from '@nexus/protocol';
import { startScriptedModelServer } from '@nexus/testkit/llm';
import { startAllocationMeter } from '../../../bench/allocation-meter.ts';

const { values } = parseArgs({
  options: {
    turns: { type: 'string', default: '400' },
    memories: { type: 'string', default: '10000,100000' },
    // Memories per conversation session they are linked to; 0 links none (no session neighbours).
    'session-size': { type: 'string', default: '20' },
  },
});
const TURNS = Number(values.turns);
const SIZES = values.memories.split(',').map(Number);
const SESSION_SIZE = Number(values['session-size']);
const WARM_UP = 30;
const PERSON = 'bench:person';
const VOCABULARY = (
  'tea coffee morning evening jazz piano trains harbour garden dog cat bicycle marathon dutch spanish ' +
  'recipe pasta spicy vegan allergy peanuts doctor nurse teacher kyoto lisbon winter summer books poetry ' +
  'chess football budget savings sister brother birthday concert hiking sushi cycling painting rent office ' +
  'dinner restaurant flight hotel museum beach mountain camera guitar yoga swimming coding python meeting'
).split(' ');
let seed = 7;
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
  return seed / 2_147_483_648;
};
const word = () => VOCABULARY[Math.floor(random() * VOCABULARY.length)] ?? 'tea';
const CATEGORIES = ['preference', 'fact', 'pattern', 'event'] as const;

function percentile(sample: number[], p: number): number {
  const sorted = [...sample].sort((left, right) => left - right);
  return (
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN
  );
}
const round = (value: number) => Math.round(value * 100) / 100;

const directory = mkdtempSync(join(tmpdir(), 'nexus-turn-bench-'));
const model = await startScriptedModelServer();
const counter = sharedTokenCounter();

/** A store holding `count` memories of the person, written in batches of 1,000. */
async function seededMemory(count: number) {
  const store = createSqliteMemoryStore({ path: join(directory, `memory-${count}.sqlite`) });
  const memory = new MemoryService({
    store,
    tokenCounter: counter,
  });
  const now = Date.now();
  let items: Array<{ memory: Memory }> = [];
  for (let index = 0; index < count; index += 1) {
    const content = `${index % 3 === 0 ? 'Likes' : 'Often mentions'} ${word()} and ${word()} with ${word()} ${word()} (${index})`;
    const at = now - Math.floor(random() * 365 * 24 * 60 * 60 * 1000);
    items.push({
      memory: {
        id: randomUUID(),
        userId: PERSON,
        scope: 'user',
        // Linked to a conversation, twenty memories each, as extraction links them: search also
        // weighs each memory's session neighbours (session-neighbours.ts), so the bench pays for it.
        ...(SESSION_SIZE > 0 ? { sessionId: `bench:session-${Math.floor(index / SESSION_SIZE)}` } : {}),
        content,
        category: CATEGORIES[index % 4]!,
        source: index % 2 === 0 ? 'user_explicit' : 'inferred',
        createdAt: at,
        updatedAt: at,
        hash: contentHash(content),
        metadata: {},
      },
    });
    if (items.length === 1_000) {
      await store.insertMany({ items });
      items = [];
    }
  }
  if (items.length > 0) await store.insertMany({ items });
  // The person's in-process lexical index, as their first message after a start builds it (in
  // slices for a large person, FTS5 answering meanwhile): timed here, then the turns run on it.
  const started = performance.now();
  await store.warmLexicalIndex({ userId: PERSON });
  return { store, memory, indexBuildMs: performance.now() - started };
}

async function runTurns(label: string, options: Pick<NexusCoreOptions, 'memory'>) {
  const reports: TurnReport[] = [];
  const modelMs: number[] = [];
  const sessionStore = createSqliteSessionStore({ path: join(directory, `${label}-sessions.sqlite`) });
  const agent = createAgent({
    model: createOpenAICompatible({ baseURL: model.baseUrl, name: 'scripted' })('scripted-model'),
  });
  const core = createNexusCore({
    sessionStore,
    agent,
    tokenCounter: counter,
    now: () => performance.timeOrigin + performance.now(),
    onTurnFinished: (report) => reports.push(report),
    ...options,
  });
  const channel: ChannelAdapter = {
    name: 'bench',
    // A plain text channel that drops what it is given: the bench measures core, not a platform.
    capabilities: {
      edits: false,
      typing: false,
      groups: false,
      mediaIn: [],
      mediaOut: [],
      linking: 'none',
    },
    async start() {},
    async stop() {},
    health: () => ({ status: 'up' }),
    async deliver({ events }) {
      for await (const _event of events);
    },
  };
  core.registerChannel(channel);
  let cpuAtWarm = process.cpuUsage();
  let meter = startAllocationMeter();
  for (let index = 0; index < TURNS; index += 1) {
    if (index === WARM_UP) {
      cpuAtWarm = process.cpuUsage();
      meter.stop();
      meter = startAllocationMeter();
    }
    model.requests.length = 0;
    await core.intake({
      id: `${label}-${index}`,
      channel: 'bench',
      conversation: { id: `conversation-${index % 20}`, kind: 'direct' },
      sender: { platformId: 'person' },
      userId: PERSON,
      text: `could you help me plan something with ${word()} and ${word()} this ${word()}?`,
      mentionsAssistant: false,
      receivedAt: new Date().toISOString(),
    });
    await core.whenIdle();
    const request = model.chatRequests().at(-1);
    modelMs.push(request?.finishedAt !== undefined ? request.finishedAt - request.receivedAt : 0);
  }
  const cpu = process.cpuUsage(cpuAtWarm);
  const allocation = meter.stop();
  await core.shutdown({ deadlineMs: 2_000 });
  const kept = reports.slice(WARM_UP);
  const overhead = kept.map((report, index) => report.durationMs - (modelMs[index + WARM_UP] ?? 0));
  const memoryStep = kept.flatMap((report) => (report.memory ? [report.memory.durationMs] : []));
  const failed = reports.filter((report) => report.outcome !== 'ok').length;
  return {
    overhead,
    memoryStep,
    failed,
    cpuMsPerTurn: (cpu.user + cpu.system) / 1000 / (TURNS - WARM_UP),
    allocatedKbPerTurn: allocation.allocatedBytes / 1024 / (TURNS - WARM_UP),
    gcMsPerTurn: allocation.gcMs / (TURNS - WARM_UP),
    memoriesUsed: kept.map((report) => report.memory?.memoriesUsed ?? 0),
  };
}

const without = await runTurns('plain', {});
const rows: Array<[string, string | number]> = [
  ['turns measured (each run)', TURNS - WARM_UP],
  [
    'turn overhead without memory p50 / p95 ms',
    [50, 95].map((p) => round(percentile(without.overhead, p))).join(' / '),
  ],
  [
    '  CPU / heap allocated per turn',
    `${round(without.cpuMsPerTurn)} ms / ${round(without.allocatedKbPerTurn)} KB`,
  ],
];
const figures: Array<Record<string, number>> = [];
let failed = without.failed;
for (const size of SIZES) {
  const { store, memory, indexBuildMs } = await seededMemory(size);
  /** The memory service's own time for the same kind of query, outside any turn. */
  const serviceContextMs: number[] = [];
  for (let index = 0; index < TURNS; index += 1) {
    const started = performance.now();
    await memory.context({
      userId: PERSON,
      query: `could you help me plan something with ${word()} and ${word()} this ${word()}?`,
      sessionId: `bench:conversation-${index % 20}`,
    });
    if (index >= WARM_UP) serviceContextMs.push(performance.now() - started);
  }
  const withMemory = await runTurns(`memory-${size}`, { memory: { port: memory, tools: true } });
  await store.close();
  failed += withMemory.failed;
  rows.push(
    [`${size} memories for the person`, ''],
    ['  lexical index build (background, once per start) ms', round(indexBuildMs)],
    [
      '  memory step p50 / p95 / p99 ms',
      [50, 95, 99].map((p) => round(percentile(withMemory.memoryStep, p))).join(' / '),
    ],
    [
      '  of which MemoryService.context p50 / p95 ms',
      [50, 95].map((p) => round(percentile(serviceContextMs, p))).join(' / '),
    ],
    [
      '  turn overhead with memory p50 / p95 ms',
      [50, 95].map((p) => round(percentile(withMemory.overhead, p))).join(' / '),
    ],
    [
      '  CPU / heap allocated per turn',
      `${round(withMemory.cpuMsPerTurn)} ms / ${round(withMemory.allocatedKbPerTurn)} KB (GC ${round(withMemory.gcMsPerTurn)} ms)`,
    ],
    ['  memories in the prompt (median)', percentile(withMemory.memoriesUsed, 50)],
  );
  figures.push({
    memories: size,
    lexical_index_build_ms: round(indexBuildMs),
    memory_step_p95_ms: round(percentile(withMemory.memoryStep, 95)),
    turn_overhead_p95_ms: round(percentile(withMemory.overhead, 95)),
    memory_service_context_p95_ms: round(percentile(serviceContextMs, 95)),
    cpu_ms_per_turn: round(withMemory.cpuMsPerTurn),
    allocated_kb_per_turn: round(withMemory.allocatedKbPerTurn),
  });
}
await model.close();
rmSync(directory, { recursive: true, force: true });
rows.push(['failed turns', failed]);
const width = Math.max(...rows.map(([label]) => label.length));
for (const [label, value] of rows) process.stdout.write(`${label.padEnd(width)}  ${value}\n`);
process.stdout.write(
  `${JSON.stringify({
    turns: TURNS - WARM_UP,
    session_size: SESSION_SIZE,
    turn_overhead_without_memory_p95_ms: round(percentile(without.overhead, 95)),
    cpu_ms_per_turn_without_memory: round(without.cpuMsPerTurn),
    allocated_kb_per_turn_without_memory: round(without.allocatedKbPerTurn),
    with_memory: figures,
  })}\n`,
);
