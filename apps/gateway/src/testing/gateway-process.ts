import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// The production entry point (compile cache, then the CLI), as the image starts it.
const CLI = fileURLToPath(new URL('../../bin/nexus.mjs', import.meta.url));

export interface GatewayProcess {
  url: string;
  port: number;
  child: ChildProcess;
  /** Every stdout and stderr line so far. */
  output: string[];
  /** Resolves with the exit code (or the signal name) when the process ends. */
  exited: Promise<number | string>;
  isAlive(): boolean;
  /** SIGTERM, then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<number | string>;
}

/** `nexus start` as its own process (the real CLI, its signal and crash handling included). */
export async function startGatewayProcess(
  env: Record<string, string>,
  options: { nodeArgs?: string[] } = {},
): Promise<GatewayProcess> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith('NEXUS_')),
  );
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), CLI, 'start'], {
    env: { ...inherited, NEXUS_HOST: '127.0.0.1', NEXUS_PORT: '0', NEXUS_LOG_PRETTY: 'false', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the gateway did not start:\n${output.join('\n')}`));
    }, 30_000);
    for (const stream of [child.stdout, child.stderr]) {
      let rest = '';
      stream?.setEncoding('utf8');
      stream?.on('data', (chunk: string) => {
        const lines = (rest + chunk).split('\n');
        rest = lines.pop() ?? '';
        for (const line of lines) {
          output.push(line);
          const listening = /"msg":"nexus gateway listening"/.test(line) && /"url":"([^"]+)"/.exec(line);
          if (listening) {
            clearTimeout(timer);
            resolve(listening[1]!);
          }
        }
      });
    }
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the gateway exited with ${code} before it listened:\n${output.join('\n')}`));
    });
  });
  const isAlive = () => child.exitCode === null && child.signalCode === null;
  return {
    url,
    port: Number(new URL(url).port),
    child,
    output,
    exited,
    isAlive,
    async stop(graceMs = 15_000) {
      if (isAlive()) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        void exited.finally(() => clearTimeout(timer));
      }
      return exited;
    },
  };
}
