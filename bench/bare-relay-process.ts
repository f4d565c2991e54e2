// The bare relay in a process of its own (bench/bare-relay-main.ts). A gateway is its own process,
// so each of its hops (client → gateway → model → gateway → client) wakes another process; the
// relay inside the bench process shares one event loop with the clients and the model and pays
// none of those wake-ups. `pnpm bench:floor` measures both, so the ratio can be read either way.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { BareRelay } from './bare-relay.ts';

const MAIN = fileURLToPath(new URL('./bare-relay-main.ts', import.meta.url));

export async function startBareRelayProcess(options: {
  modelBaseUrl: string;
  model: string;
  via?: 'fetch' | 'ai-sdk';
  /** V8 flags, as the gateway gets them, so both processes run alike. */
  nodeArgs?: string[];
}): Promise<BareRelay> {
  const child = spawn(
    process.execPath,
    [...(options.nodeArgs ?? []), MAIN, options.modelBaseUrl, options.model, options.via ?? 'fetch'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  child.stdout.setEncoding('utf8');
  const url = await new Promise<string>((resolve, reject) => {
    let read = '';
    child.stdout.on('data', (chunk: string) => {
      read += chunk;
      const end = read.indexOf('\n');
      if (end !== -1) resolve(read.slice(0, end));
    });
    child.once('exit', (code) =>
      reject(new Error(`the relay process exited with ${code} before it listened`)),
    );
  });
  return {
    url,
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}
