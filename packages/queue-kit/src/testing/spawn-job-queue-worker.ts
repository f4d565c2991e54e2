import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** How to open a JobQueue in another process: a module exporting a factory, and its JSON options. */
export interface JobQueueWorkerModule {
  /** Absolute path of the module. */
  module: string;
  exportName: string;
  options: unknown;
}

export interface SpawnedJobQueueWorker {
  /** Resolves when the child's handler has started a job (it then holds the job forever). */
  started: Promise<{ jobId: string; attempt: number }>;
  /** SIGKILL, then waits for the process to be gone. */
  kill(): Promise<void>;
}

const CHILD_SCRIPT = fileURLToPath(new URL('./job-queue-worker-child.ts', import.meta.url));

/** Starts a worker process that takes one job of `name` and hangs on it, to simulate a crash. */
export function spawnJobQueueWorker(options: JobQueueWorkerModule & { name: string }): SpawnedJobQueueWorker {
  const child: ChildProcess = fork(CHILD_SCRIPT, [JSON.stringify(options)], {
    execArgv: ['--disable-warning=ExperimentalWarning'],
    stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4_000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const started = new Promise<{ jobId: string; attempt: number }>((resolve, reject) => {
    child.on('message', (message: { type?: string; jobId?: string; attempt?: number }) => {
      if (message.type === 'started')
        resolve({ jobId: String(message.jobId), attempt: Number(message.attempt) });
    });
    child.once('exit', (code, signal) => {
      reject(
        new Error(
          `The worker process exited (code ${code}, signal ${signal}) before taking a job.\n${stderr}`,
        ),
      );
    });
  });
  started.catch(() => {});
  return {
    started,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
