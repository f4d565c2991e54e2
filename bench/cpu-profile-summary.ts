// node bench/cpu-profile-summary.ts FILE.cpuprofile [--all] [--top N] [--callers NAME,NAME…]
// Reads a V8 CPU profile of the gateway (`pnpm bench:gateway --cpu-prof-dir DIR`) and prints where
// its main thread was busy during the bench's load only: the bench writes the load's window
// (`load-window-<pid>.json`, the same monotonic clock as the profile's timestamps) beside the
// profile, and samples outside it (start-up, warm-up, the extraction backlog) are left out
// (`--all` keeps them). Prints self time by function and by package, in shares of the busy time
// and in µs per turn, and with `--callers` the inclusive share of each function whose label
// contains NAME with the chains of callers above it.
//
// A sample is wall time on the thread: a system call that blocks or a thread the kernel
// preempted (a write that wakes the bench's client on a busy 2-core machine) counts as busy time
// of the function that made it. Read the shares beside the bench's own CPU figures.
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { type CallFrame, frameLabel, packageOfUrl } from './profile-frames.ts';

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    all: { type: 'boolean', default: false },
    top: { type: 'string', default: '25' },
    callers: { type: 'string' },
  },
});
const file = positionals[0];
if (!file)
  throw new Error('usage: node bench/cpu-profile-summary.ts FILE [--all] [--top N] [--callers NAME,…]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const pid = /\.(\d+)\.\d+\.\d+\.cpuprofile$/u.exec(basename(file))?.[1];
const windowFile = join(dirname(file), `load-window-${pid}.json`);
const window =
  !values.all && existsSync(windowFile)
    ? (JSON.parse(readFileSync(windowFile, 'utf8')) as { startUs: number; endUs: number; turns: number })
    : undefined;

const SPECIAL = new Set(['(garbage collector)', '(program)', '(idle)', '(root)']);

const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const parents = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);

function packageOf(frame: CallFrame): string {
  if (SPECIAL.has(frame.functionName)) return frame.functionName;
  return frame.url === '' ? '(native)' : packageOfUrl(frame.url);
}

// Each sample's weight is the time until the next one (the last sample has none).
const selfByNode = new Map<number, number>();
let time = profile.startTime;
let busy = 0;
profile.samples.forEach((id, index) => {
  time += profile.timeDeltas[index] ?? 0;
  if (window && (time < window.startUs || time > window.endUs)) return;
  const weight = Math.max(0, profile.timeDeltas[index + 1] ?? 0);
  if (nodes.get(id)?.callFrame.functionName === '(idle)') return;
  selfByNode.set(id, (selfByNode.get(id) ?? 0) + weight);
  busy += weight;
});

const add = (into: Map<string, number>, key: string, weight: number) =>
  into.set(key, (into.get(key) ?? 0) + weight);
const byFunction = new Map<string, number>();
const byPackage = new Map<string, number>();
for (const [id, weight] of selfByNode) {
  const frame = (nodes.get(id) as ProfileNode).callFrame;
  add(byFunction, frameLabel(frame), weight);
  add(byPackage, packageOf(frame), weight);
}

const turns = window?.turns;
const line = (label: string, weight: number) =>
  `${((100 * weight) / busy).toFixed(2).padStart(6)}%${turns ? `${((weight / turns) | 0).toString().padStart(7)} µs/turn` : ''}  ${label}`;
const print = (title: string, table: Map<string, number>, top: number) => {
  process.stdout.write(`\n${title}\n`);
  for (const [label, weight] of [...table].sort((a, b) => b[1] - a[1]).slice(0, top))
    process.stdout.write(`${line(label, weight)}\n`);
};

process.stdout.write(
  `${window ? `load window: ${((window.endUs - window.startUs) / 1000).toFixed(0)} ms, ${turns} turns` : 'whole profile'}; main thread busy ${(busy / 1000).toFixed(0)} ms${turns ? ` (${(busy / turns / 1000).toFixed(2)} ms a turn)` : ''}\n`,
);
print('self time by function', byFunction, Number(values.top));
print('self time by package', byPackage, Number(values.top));

for (const wanted of values.callers?.split(',') ?? []) {
  // Inclusive: a sample counts once, under the nearest frame on its stack whose label matches.
  const chains = new Map<string, number>();
  let inclusive = 0;
  for (const [id, weight] of selfByNode) {
    let at: number | undefined = id;
    while (at !== undefined && !frameLabel((nodes.get(at) as ProfileNode).callFrame).includes(wanted))
      at = parents.get(at);
    if (at === undefined) continue;
    inclusive += weight;
    const chain: string[] = [];
    for (let up = parents.get(at); up !== undefined && chain.length < 6; up = parents.get(up))
      chain.push((nodes.get(up) as ProfileNode).callFrame.functionName || '(anonymous)');
    add(chains, chain.join(' < '), weight);
  }
  process.stdout.write(`\n"${wanted}" inclusive: ${line('', inclusive).trimEnd()}; callers\n`);
  for (const [chain, weight] of [...chains].sort((a, b) => b[1] - a[1]).slice(0, 8))
    process.stdout.write(`${line(chain, weight)}\n`);
}
