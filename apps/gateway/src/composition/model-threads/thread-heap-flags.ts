import { setFlagsFromString } from 'node:v8';
import type { Worker } from 'node:worker_threads';

/**
 * The young generation a model thread's V8 heap is created with: 2 MB semi-spaces, where the
 * gateway runs with 8 (`--max-semi-space-size=8`, docs/deployment.md "Memory"). A thread only
 * parses provider responses; its short-lived garbage does not need the main thread's nursery,
 * and a second 8 MB nursery (two semi-spaces, 16 MB resident under load) was a third of what a
 * thread added to the gateway's peak RSS.
 */
const THREAD_SEMI_SPACE_MB = 2;

/**
 * Creates a model thread's worker with the thread's heap flags set; the worker sets the process's
 * own flags back as its first statement (`restoreFlags` in its workerData), and this thread does
 * too once the worker is online or gone, should it never get that far.
 *
 * Why flags rather than the Worker's `resourceLimits.maxYoungGenerationSizeMb`: V8 lets a
 * `--max-semi-space-size` flag override an isolate's own limit, so under the production flags
 * `resourceLimits` changes nothing. V8 flags are process-wide but read once, when an isolate's
 * heap is set up (on the worker's thread, shortly after `new Worker` returns): the flag is
 * lowered for that moment only, so the main thread's heap (set up long before) and any later
 * isolate keep the process's value.
 */
export function startWithThreadHeapFlags(create: (restoreFlags: string) => Worker): Worker {
  const processValue = processFlagValue('max-semi-space-size');
  if (processValue !== undefined && processValue <= THREAD_SEMI_SPACE_MB) return create('');
  // 0 is V8's "not set": the size chosen from the heap limit, as without the flag.
  const restoreFlags = `--max-semi-space-size=${processValue ?? 0}`;
  const restore = () => setFlagsFromString(restoreFlags);
  setFlagsFromString(`--max-semi-space-size=${THREAD_SEMI_SPACE_MB}`);
  let worker: Worker;
  try {
    worker = create(restoreFlags);
  } catch (error) {
    restore();
    throw error;
  }
  worker.once('online', restore).once('exit', restore);
  return worker;
}

/** A numeric V8 flag as this process was started with it (NODE_OPTIONS, then the command line). */
export function processFlagValue(name: string, argv = processArgs()): number | undefined {
  let value: number | undefined;
  const spellings = [name, name.replaceAll('-', '_')];
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index]!;
    for (const spelling of spellings) {
      const flag = `--${spelling}`;
      if (arg === flag && argv[index + 1] !== undefined) value = Number(argv[index + 1]);
      else if (arg.startsWith(`${flag}=`)) value = Number(arg.slice(flag.length + 1));
    }
  }
  return value !== undefined && Number.isFinite(value) ? value : undefined;
}

function processArgs(): string[] {
  // Node reads NODE_OPTIONS before the command line, whose flags therefore win.
  return [...(process.env.NODE_OPTIONS ?? '').split(/\s+/u).filter(Boolean), ...process.execArgv];
}
