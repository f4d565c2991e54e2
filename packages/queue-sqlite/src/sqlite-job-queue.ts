import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import {
  DEFAULT_JOB_CLOSE_TIMEOUT_MS,
  type JobQueue,
  type Logger,
  NexusError,
  silentLogger,
} from '@nexus/protocol';
import { assertJobName, normaliseConcurrency, normaliseEnqueueOptions } from '@nexus/queue-kit';
import { GroupCommit } from '@nexus/sqlite-kit';
import { type SqliteJobProcessor, startSqliteJobProcessor } from './sqlite-job-processor.ts';
import { type NewJob, SqliteJobStore } from './sqlite-job-store.ts';

export interface SqliteJobQueueOptions {
  /** A file path, or ':memory:' for a queue that lives (and dies) with this instance. */
  path: string;
  /** How long a job stays leased without a renewal before another worker may take it. */
  leaseMs?: number;
  /** How often idle processors look for work enqueued by other processes. */
  pollIntervalMs?: number;
  /** Lease expiries (crashes) a job survives before it is parked; mirrors BullMQ's maxStalledCount. */
  maxLeaseExpiries?: number;
  /** How long completed jobs are kept, and so how long their jobId de-duplicates. */
  keepCompletedMs?: number;
  /**
   * How long a parked job is kept for inspection and `retryParked`. Default 7 days, as BullMQ's
   * `keepFailedMs`. A positive whole number.
   */
  keepFailedMs?: number;
  /**
   * Parked jobs kept per job name at most (the newest), as BullMQ's `keepFailedCount`: a job that
   * keeps failing cannot grow the file without bound. Default 1000. A positive whole number.
   */
  keepFailedCount?: number;
  /** Bytes of JSON a job's payload may hold (default DEFAULT_MAX_JOB_PAYLOAD_BYTES, 1 MiB). */
  maxPayloadBytes?: number;
  /** Default deadline of `close()` and `stop()` for running handlers. */
  closeTimeoutMs?: number;
  busyTimeoutMs?: number;
  now?: () => number;
  generateId?: () => string;
  logger?: Logger;
}

const PRUNE_INTERVAL_MS = 60_000;

/** Processors of every instance in this process, by database file, so an enqueue wakes them at once. */
const processorsByPath = new Map<string, Set<NamedProcessor>>();

type NamedProcessor = SqliteJobProcessor & { name: string };

function register(pathKey: string, processor: NamedProcessor): void {
  const processors = processorsByPath.get(pathKey) ?? new Set();
  processors.add(processor);
  processorsByPath.set(pathKey, processors);
}

function unregister(pathKey: string, processor: NamedProcessor): void {
  const processors = processorsByPath.get(pathKey);
  processors?.delete(processor);
  if (processors?.size === 0) processorsByPath.delete(pathKey);
}

/**
 * The embedded JobQueue: one SQLite table (node:sqlite, WAL) shared by every process that opens
 * the same file. Workers lease jobs and renew the lease while the handler runs; a job whose
 * worker died becomes visible again once its lease expires. Needs no server.
 */
export function createSqliteJobQueue(options: SqliteJobQueueOptions): JobQueue {
  const leaseMs = positive(options.leaseMs ?? 30_000, 'leaseMs');
  const pollIntervalMs = positive(options.pollIntervalMs ?? 200, 'pollIntervalMs');
  const keepCompletedMs = positive(options.keepCompletedMs ?? 24 * 60 * 60 * 1000, 'keepCompletedMs');
  const keepFailedMs = positiveInteger(options.keepFailedMs ?? 7 * 24 * 60 * 60 * 1000, 'keepFailedMs');
  const keepFailedCount = positiveInteger(options.keepFailedCount ?? 1000, 'keepFailedCount');
  const maxLeaseExpiries = options.maxLeaseExpiries ?? 1;
  const closeTimeoutMs = options.closeTimeoutMs ?? DEFAULT_JOB_CLOSE_TIMEOUT_MS;
  const now = options.now ?? Date.now;
  const generateId = options.generateId ?? randomUUID;
  const logger = (options.logger ?? silentLogger).child({ component: 'sqlite-job-queue' });
  const store = new SqliteJobStore({ path: options.path, busyTimeoutMs: options.busyTimeoutMs ?? 5_000 });
  const pathKey = options.path === ':memory:' ? `:memory:${randomUUID()}` : resolve(options.path);
  const processors = new Set<NamedProcessor>();
  let closed: Promise<void> | undefined;
  let lastPruneAt = 0;
  // Jobs enqueued in one event-loop turn (every turn ends with one) share one transaction; each
  // enqueue resolves after the commit that holds it, so an awaited job is as durable as before.
  const inserts = new GroupCommit<NewJob, string | undefined>((jobs) => store.insertMany(jobs));

  function ensureOpen(): void {
    if (closed) throw new NexusError({ code: 'shutting_down', message: 'The job queue is closed.' });
  }

  function wake(name: string): void {
    for (const processor of processorsByPath.get(pathKey) ?? []) {
      if (processor.name === name) processor.wake();
    }
  }

  function pruneIfDue(): void {
    const time = now();
    if (time - lastPruneAt < PRUNE_INTERVAL_MS) return;
    lastPruneAt = time;
    try {
      const removed = store.prune({
        completedBefore: time - keepCompletedMs,
        parkedBefore: time - keepFailedMs,
        parkedPerName: keepFailedCount,
      });
      if (removed.completed > 0 || removed.parked > 0) logger.debug(removed, 'pruned finished jobs');
    } catch (error) {
      logger.warn({ err: error }, 'pruning finished jobs failed');
    }
  }

  pruneIfDue();

  return {
    async enqueue(enqueueOptions) {
      enqueueOptions.abortSignal?.throwIfAborted();
      ensureOpen();
      const job = normaliseEnqueueOptions(enqueueOptions, options.maxPayloadBytes);
      const jobId = job.jobId ?? generateId();
      const time = now();
      const heldBy = await inserts.add({
        name: job.name,
        id: jobId,
        ...(job.debounceKey !== undefined ? { debounceKey: job.debounceKey } : {}),
        payloadJson: job.payloadJson,
        ...(job.traceparent ? { traceparent: job.traceparent } : {}),
        runAt: time + job.delayMs,
        maxAttempts: job.attempts,
        backoff: job.backoff,
        createdAt: time,
      });
      // A debounced job that took the payload only runs later than before: no need to wake.
      if (heldBy === jobId) wake(job.name);
      pruneIfDue();
      return { jobId: heldBy ?? jobId, deduplicated: heldBy !== jobId };
    },

    process(processOptions) {
      ensureOpen();
      assertJobName(processOptions.name);
      if (typeof processOptions.handler !== 'function') {
        throw new NexusError({ code: 'invalid_config', message: 'process() needs a handler function.' });
      }
      const processor = Object.assign(
        startSqliteJobProcessor({
          store,
          name: processOptions.name,
          handler: processOptions.handler,
          concurrency: normaliseConcurrency(processOptions.concurrency),
          leaseMs,
          pollIntervalMs,
          maxLeaseExpiries,
          closeTimeoutMs,
          now,
          generateToken: randomUUID,
          logger: logger.child({ jobName: processOptions.name }),
          onStopped: () => {
            processors.delete(processor);
            unregister(pathKey, processor);
          },
        }),
        { name: processOptions.name },
      );
      processors.add(processor);
      register(pathKey, processor);
      return { stop: (stopOptions) => processor.stop(stopOptions) };
    },

    async parked(parkedOptions) {
      parkedOptions?.abortSignal?.throwIfAborted();
      ensureOpen();
      if (parkedOptions?.name !== undefined) assertJobName(parkedOptions.name);
      const limit = Math.max(1, Math.floor(parkedOptions?.limit ?? 100));
      return store.parked({ name: parkedOptions?.name, limit });
    },

    async retryParked(retryOptions) {
      retryOptions.abortSignal?.throwIfAborted();
      ensureOpen();
      if (retryOptions.name !== undefined) assertJobName(retryOptions.name);
      const names = store.retryParked({ id: retryOptions.jobId, name: retryOptions.name, now: now() });
      for (const name of new Set(names)) wake(name);
      return { retried: names.length > 0 };
    },

    async counts(countOptions) {
      countOptions?.abortSignal?.throwIfAborted();
      ensureOpen();
      if (countOptions?.name !== undefined) assertJobName(countOptions.name);
      inserts.flush();
      return store.counts({ name: countOptions?.name, now: now() });
    },

    async purgePayloads(purgeOptions) {
      purgeOptions.abortSignal?.throwIfAborted();
      ensureOpen();
      inserts.flush();
      const { ids, running } = store.purgePayloads(purgeOptions.values);
      // Running jobs are deleted too (their workers lose the lease), and reported as running:
      // their handlers may still be finishing what they started.
      return { removed: ids.length, jobIds: ids, running };
    },

    close(closeOptions) {
      closed ??= (async () => {
        inserts.flush();
        await Promise.all([...processors].map((processor) => processor.stop(closeOptions)));
        store.close();
      })();
      return closed;
    },
  };
}

function positive(value: number, label: string): number {
  if (!Number.isFinite(value) || value <= 0) {
    throw new NexusError({ code: 'invalid_config', message: `${label} must be a positive number.` });
  }
  return value;
}

function positiveInteger(value: number, label: string): number {
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new NexusError({ code: 'invalid_config', message: `${label} must be a positive whole number.` });
  }
  return value;
}
