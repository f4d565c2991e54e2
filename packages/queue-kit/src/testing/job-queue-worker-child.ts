// Runs in a child process started by spawnJobQueueWorker: opens a JobQueue through the given
// factory and takes one job with a handler that never finishes, so the parent can SIGKILL this
// process while it holds the job.
import { pathToFileURL } from 'node:url';
import type { JobQueue } from '@nexus/protocol';

interface ChildConfig {
  module: string;
  exportName: string;
  options: unknown;
  name: string;
}

const config = JSON.parse(process.argv[2] ?? '{}') as ChildConfig;
const loaded = (await import(pathToFileURL(config.module).href)) as Record<string, unknown>;
const factory = loaded[config.exportName];
if (typeof factory !== 'function') {
  throw new Error(`${config.module} does not export a function named ${config.exportName}`);
}
const queue = (await factory(config.options)) as JobQueue;
queue.process({
  name: config.name,
  handler: (job) => {
    process.send?.({ type: 'started', jobId: job.id, attempt: job.attempt });
    return new Promise<void>(() => {});
  },
});
process.send?.({ type: 'ready' });
