import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { processFlagValue } from './thread-heap-flags.ts';

const run = promisify(execFile);

describe('processFlagValue', () => {
  it('reads a V8 size flag in either spelling and form, the last one winning', () => {
    expect(processFlagValue('max-semi-space-size', ['--max-semi-space-size=8'])).toBe(8);
    expect(processFlagValue('max-semi-space-size', ['--max_semi_space_size', '4'])).toBe(4);
    expect(
      processFlagValue('max-semi-space-size', [
        '--max-semi-space-size=8',
        '--max-old-space-size=192',
        '--max-semi-space-size=16',
      ]),
    ).toBe(16);
    expect(processFlagValue('max-semi-space-size', ['--max-old-space-size=192'])).toBeUndefined();
  });
});

// A process under the production flags: its model thread's heap is created with the smaller young
// generation (V8's heap limit is the old generation's plus three semi-spaces), while the main
// thread's heap and a worker started after the model thread ran keep the process's 8 MB.
const SCRIPT = `
  import v8 from 'node:v8';
  import { Worker } from 'node:worker_threads';
  import { ModelThreadPool } from ${JSON.stringify(new URL('./model-thread-pool.ts', import.meta.url).href)};
  const pool = new ModelThreadPool({ threads: 1 });
  const model = pool.define({ provider: 'openai-compatible', baseUrl: 'http://127.0.0.1:9/v1', name: 'm' });
  // A call answered proves the thread ran its first file, where it restores the process's flags.
  await new Promise((resolve, reject) =>
    pool.call(model, 'describe', undefined, { onEvent: resolve, onThreadLost: reject }),
  );
  const later = new Worker('setInterval(() => {}, 1000)', { eval: true });
  await new Promise((resolve) => later.once('online', resolve));
  const limits = {
    main: v8.getHeapStatistics().heap_size_limit,
    modelThread: (await pool.workers()[0].getHeapStatistics()).heap_size_limit,
    laterWorker: (await later.getHeapStatistics()).heap_size_limit,
  };
  await later.terminate();
  await pool.close();
  process.stdout.write(JSON.stringify(limits));
`;

describe('a model thread heap', () => {
  it('has a 2 MB young generation under --max-semi-space-size=8, and only the model thread', async () => {
    // A file, not --eval: a worker inherits the process's flags, and --input-type is refused there.
    const dir = await mkdtemp(join(tmpdir(), 'nexus-thread-heap-'));
    const script = join(dir, 'limits.mjs');
    await writeFile(script, SCRIPT);
    const { stdout } = await run(
      process.execPath,
      ['--max-semi-space-size=8', '--max-old-space-size=192', script],
      { env: { ...process.env, NODE_OPTIONS: '' } },
    ).finally(() => rm(dir, { recursive: true, force: true }));
    const limits = JSON.parse(stdout) as Record<'main' | 'modelThread' | 'laterWorker', number>;
    const MB = 1024 * 1024;
    expect(limits.main).toBe((192 + 3 * 8) * MB);
    expect(limits.laterWorker).toBe(limits.main);
    expect(limits.modelThread).toBe((192 + 3 * 2) * MB);
  }, 30_000);
});
