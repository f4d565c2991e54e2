import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeJobQueueContract } from '@nexus/testkit/queue';
import { createSqliteJobQueue, type SqliteJobQueueOptions } from './sqlite-job-queue.ts';

const directory = mkdtempSync(join(tmpdir(), 'nexus-job-queue-'));
// A short lease so a SIGKILLed worker's job comes back within a second.
const options: SqliteJobQueueOptions = {
  path: join(directory, 'jobs.sqlite'),
  leaseMs: 500,
  pollIntervalMs: 50,
};

describeJobQueueContract({
  name: 'SQLite (node:sqlite)',
  create: async () => createSqliteJobQueue(options),
  cleanup: async () => rmSync(directory, { recursive: true, force: true }),
  worker: {
    module: fileURLToPath(new URL('./sqlite-job-queue.ts', import.meta.url)),
    exportName: 'createSqliteJobQueue',
    options,
  },
});
