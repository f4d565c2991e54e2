// node bench/heap-profile-summary.ts FILE [--per TURNS] [--top N]
// Reads a sampling heap profile (`pnpm bench:gateway --heap-profile FILE`, or any .heapprofile
// from V8) and prints where the bytes were allocated, in KB per turn with `--per` (the bench's
// `turns`), three ways: by package (a built-in with no source of its own, such as a Promise or an
// array, charged to the function that called it), by function (likewise), and by our nearest
// calling function (the closest frame in packages/ or apps/ on the stack; "(none)" when the
// allocation ran from a microtask or stream callback with none of our frames above it).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { type CallFrame, frameLabel, packageOfUrl } from './profile-frames.ts';

interface ProfileNode {
  callFrame: CallFrame;
  selfSize: number;
  children?: ProfileNode[];
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { per: { type: 'string', default: '1' }, top: { type: 'string', default: '30' } },
});
const file = positionals[0];
if (!file) throw new Error('usage: node bench/heap-profile-summary.ts FILE [--per TURNS] [--top N]');
const per = Number(values.per);
const top = Number(values.top);
const profile = JSON.parse(readFileSync(file, 'utf8')) as { head: ProfileNode };

const isOurs = (url: string) =>
  /\/(packages|apps)\/[^/]+\/(?:src|bench)\//u.test(url) && !url.includes('node_modules');
const byPackage = new Map<string, number>();
const byFunction = new Map<string, number>();
const byOurCaller = new Map<string, number>();
let total = 0;
const add = (into: Map<string, number>, key: string, bytes: number) =>
  into.set(key, (into.get(key) ?? 0) + bytes);

function walk(
  node: ProfileNode,
  caller: { pkg: string; name: string } | undefined,
  ours: string | undefined,
) {
  const frame = node.callFrame;
  const here = frame.url ? { pkg: packageOfUrl(frame.url), name: frameLabel(frame) } : caller;
  const ourFrame = isOurs(frame.url) ? frameLabel(frame) : ours;
  if (node.selfSize > 0) {
    total += node.selfSize;
    add(byPackage, here?.pkg ?? `(V8) ${frame.functionName}`, node.selfSize);
    add(byFunction, here?.name ?? `(V8) ${frame.functionName}`, node.selfSize);
    add(byOurCaller, ourFrame ?? '(none)', node.selfSize);
  }
  for (const child of node.children ?? []) walk(child, here, ourFrame);
}
walk(profile.head, undefined, undefined);

const unit = per === 1 ? 'KB' : 'KB per turn';
const kb = (bytes: number) => (bytes / 1024 / per).toFixed(1).padStart(9);
console.log(`${kb(total)} ${unit} in all`);
for (const [title, table] of [
  ['by package', byPackage],
  ['by function', byFunction],
  ['by our nearest calling function', byOurCaller],
] as const) {
  console.log(`\n${title} (${unit})`);
  for (const [key, bytes] of [...table].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`${kb(bytes)} ${key}`);
}
