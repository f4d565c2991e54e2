import { randomUUID } from 'node:crypto';
import {
  DEFAULT_JOB_CLOSE_TIMEOUT_MS,
  type JobProcessor,
  type JobQueue,
  type Logger,
  NexusError,
  silentLogger,
} from '@nexus/protocol';
import {
  assertJobName,
  normaliseConcurrency,
  normaliseEnqueueOptions,
  oncePerInterval,
  redisReconnectDelayMs,
} from '@nexus/queue-kit';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { addDebounced } from './bullmq-debounced-add.ts';
import { startBullMqJobProcessor } from './bullmq-job-processor.ts';
import {
  countJobs,
  listParked,
  purgePayloadsOfAll,
  type QueueDirectory,
  retryParkedJob,
  toJobState,
} from './bullmq-queue-reads.ts';
import { decodeJobId, encodeJobId } from './job-id-codec.ts';

export interface BullMqJobQueueOptions {
  /** A Redis URL (this queue opens and closes its connections) or a client you own and close. */
  connection: { url: string } | Redis;
  /** Key prefix, so several deployments or test runs can share one Redis. Default 'nexus'. */
  prefix?: string;
  /** How long a worker's lock on a job lasts without renewal (BullMQ renews it at half). */
  lockDurationMs?: number;
  /** How often workers look for jobs whose lock expired (crashed or stalled workers). */
  stalledIntervalMs?: number;
  /** Lock expiries a job survives before it is parked. */
  maxStalledCount?: number;
  /** How long completed jobs are kept, and so how long their jobId de-duplicates. */
  keepCompletedMs?: number;
  /**
   * Job names whose jobs are deleted as soon as they complete (their payload with them), for jobs
   * that de-duplicate by other means: `agent.run` marks a finished turn with its own key.
   */
  removeCompletedOf?: readonly string[];
  /** How long a failed (parked) job is kept for inspection and `retry`. Default 7 days. */
  keepFailedMs?: number;
  /**
   * Failed jobs kept per job name at most (the newest): with the payload cap this bounds what
   * parked jobs hold in Redis. Default 1000.
   */
  keepFailedCount?: number;
  /** Bytes of JSON a job's payload may hold (default DEFAULT_MAX_JOB_PAYLOAD_BYTES, 1 MiB). */
  maxPayloadBytes?: number;
  /** Default deadline of `close()` and `stop()` for running handlers. */
  closeTimeoutMs?: number;
  /**
   * Reconnection attempts a command waits through before enqueue and reads fail (default 1, about
   * 100–300 ms while Redis is down). The producer fails fast, as BullMQ's "failing fast when Redis
   * is down" advises, so its caller decides how long to wait (`enqueueWithRetry`); the offline
   * queue stays on only so commands issued while the first connection opens wait for it. Workers'
   * connections wait for Redis however long it takes.
   */
  maxRetriesPerRequest?: number;
  generateId?: () => string;
  logger?: Logger;
}

/**
 * JobQueue on Redis through BullMQ 5: one BullMQ queue per job name (`{prefix}:{name}:…`),
 * failed jobs are the parked ones (the newest `keepFailedCount` kept for `keepFailedMs`),
 * completed ones kept for `keepCompletedMs` unless their name is in `removeCompletedOf`. Every
 * payload is under `maxPayloadBytes`. Used when workers run in other processes or on other machines.
 */
export function createBullMqJobQueue(options: BullMqJobQueueOptions): JobQueue {
  const prefix = options.prefix ?? 'nexus';
  if (prefix === '' || prefix.includes(':')) {
    throw new NexusError({ code: 'invalid_config', message: `prefix must be non-empty without ':'.` });
  }
  const logger = (options.logger ?? silentLogger).child({ component: 'bullmq-job-queue' });
  const generateId = options.generateId ?? randomUUID;
  const keepCompletedSeconds = Math.ceil((options.keepCompletedMs ?? 24 * 60 * 60 * 1000) / 1000);
  const removeCompletedOf = new Set(options.removeCompletedOf ?? []);
  const keepFailed = {
    age: Math.ceil((options.keepFailedMs ?? 7 * 24 * 60 * 60 * 1000) / 1000),
    count: options.keepFailedCount ?? 1000,
  };
  const closeTimeoutMs = options.closeTimeoutMs ?? DEFAULT_JOB_CLOSE_TIMEOUT_MS;
  const owned: Redis[] = [];
  const track = (client: Redis): Redis => {
    client.on(
      'error',
      oncePerInterval((error: Error) => logger.warn({ err: error }, 'Redis connection error; reconnecting')),
    );
    owned.push(client);
    return client;
  };
  const commands = clientFor(
    options,
    { maxRetriesPerRequest: options.maxRetriesPerRequest ?? 1, enableOfflineQueue: true },
    track,
  );
  const namesKey = `${prefix}::job-names`;
  const queues = new Map<string, Queue>();
  const registered = new Set<string>();
  const processors = new Set<JobProcessor>();
  let workerConnection: Redis | undefined;
  let closed: Promise<void> | undefined;

  function ensureOpen(): void {
    if (closed) throw new NexusError({ code: 'shutting_down', message: 'The job queue is closed.' });
  }

  function queueFor(name: string): Queue {
    let queue = queues.get(name);
    if (!queue) {
      queue = new Queue(name, { connection: commands, prefix });
      queue.on('error', (error) => logger.warn({ err: error, jobName: name }, 'job queue error'));
      queues.set(name, queue);
    }
    return queue;
  }

  /** `client`: the workers' connection waits for Redis, the producer's fails fast. */
  async function register(name: string, client: Redis = commands): Promise<void> {
    if (registered.has(name)) return;
    await client.sadd(namesKey, name);
    registered.add(name);
  }

  async function namesOf(name: string | undefined): Promise<string[]> {
    if (name !== undefined) return [name];
    return (await commands.smembers(namesKey)).sort();
  }

  const directory: QueueDirectory = { queueFor, namesOf };

  return {
    async enqueue(enqueueOptions) {
      enqueueOptions.abortSignal?.throwIfAborted();
      ensureOpen();
      const job = normaliseEnqueueOptions(enqueueOptions, options.maxPayloadBytes);
      const jobId = job.jobId ?? generateId();
      const encodedId = encodeJobId(jobId);
      return reachRedis('enqueue a job', async () => {
        await register(job.name);
        const queue = queueFor(job.name);
        // BullMQ ignores an add whose jobId exists without saying so; the check makes the answer
        // exact except when two enqueues of the same new id race (one job is stored either way).
        // A debounced id is fresh (the queue made it), so only the known-id check is skipped.
        if (job.debounceKey === undefined && (await commands.exists(queue.toKey(encodedId))) === 1)
          return { jobId, deduplicated: true };
        const add = () =>
          queue.add(job.name, JSON.parse(job.payloadJson), {
            jobId: encodedId,
            // BullMQ's debounce: a delayed job with this key is replaced by this one (new payload,
            // new delay); while one is active, this one is kept (the latest only) and added when
            // the active one finishes. The key lives until its job finishes (no ttl). A job due
            // but not yet taken would keep its payload: `addDebounced` replaces it too.
            ...(job.debounceKey !== undefined
              ? { deduplication: { id: job.debounceKey, replace: true, keepLastIfActive: true } }
              : {}),
            attempts: job.attempts,
            backoff: { type: job.backoff.type, delay: job.backoff.delayMs },
            ...(job.delayMs > 0 ? { delay: job.delayMs } : {}),
            // BullMQ's own field for propagated trace context (stored with the job, never
            // interpreted here since the queue has no telemetry of its own configured).
            ...(job.traceparent ? { telemetry: { metadata: job.traceparent } } : {}),
            removeOnComplete: removeCompletedOf.has(job.name) ? true : { age: keepCompletedSeconds },
            removeOnFail: keepFailed,
          });
        if (job.debounceKey !== undefined) {
          // A debounced enqueue another job took answers with that job's id.
          const added = await addDebounced({
            queue,
            client: commands,
            encodedId,
            debounceKey: job.debounceKey,
            add,
          });
          return { jobId: decodeJobId(added.encodedId), deduplicated: added.deduplicated };
        }
        await add();
        return { jobId, deduplicated: false };
      });
    },

    process(processOptions) {
      ensureOpen();
      assertJobName(processOptions.name);
      if (typeof processOptions.handler !== 'function') {
        throw new NexusError({ code: 'invalid_config', message: 'process() needs a handler function.' });
      }
      const concurrency = normaliseConcurrency(processOptions.concurrency);
      // BullMQ requires `maxRetriesPerRequest: null` for a Worker's (blocking) connection: its
      // commands wait across reconnects instead of failing the worker.
      workerConnection ??= clientFor(
        options,
        { maxRetriesPerRequest: null, enableOfflineQueue: true },
        track,
      );
      register(processOptions.name, workerConnection).catch((error: unknown) =>
        logger.warn({ err: error, jobName: processOptions.name }, 'could not record the job name'),
      );
      const processor = startBullMqJobProcessor({
        name: processOptions.name,
        handler: processOptions.handler,
        concurrency,
        connection: workerConnection,
        prefix,
        lockDurationMs: options.lockDurationMs ?? 30_000,
        stalledIntervalMs: options.stalledIntervalMs ?? 30_000,
        maxStalledCount: options.maxStalledCount ?? 1,
        closeTimeoutMs,
        logger: logger.child({ jobName: processOptions.name }),
        onStopped: () => processors.delete(processor),
      });
      processors.add(processor);
      return processor;
    },

    async parked(parkedOptions) {
      parkedOptions?.abortSignal?.throwIfAborted();
      ensureOpen();
      if (parkedOptions?.name !== undefined) assertJobName(parkedOptions.name);
      const limit = Math.max(1, Math.floor(parkedOptions?.limit ?? 100));
      return reachRedis('list parked jobs', () => listParked(directory, parkedOptions?.name, limit));
    },

    async retryParked(retryOptions) {
      retryOptions.abortSignal?.throwIfAborted();
      ensureOpen();
      if (retryOptions.name !== undefined) assertJobName(retryOptions.name);
      const encodedId = encodeJobId(retryOptions.jobId);
      return reachRedis('retry a parked job', () => retryParkedJob(directory, retryOptions.name, encodedId));
    },

    async counts(countOptions) {
      countOptions?.abortSignal?.throwIfAborted();
      ensureOpen();
      if (countOptions?.name !== undefined) assertJobName(countOptions.name);
      return reachRedis('count jobs', () => countJobs(directory, countOptions?.name));
    },

    async jobState(stateOptions) {
      stateOptions.abortSignal?.throwIfAborted();
      ensureOpen();
      assertJobName(stateOptions.name);
      return reachRedis('read a job state', async () =>
        toJobState(await queueFor(stateOptions.name).getJobState(encodeJobId(stateOptions.jobId))),
      );
    },

    async purgePayloads(purgeOptions) {
      purgeOptions.abortSignal?.throwIfAborted();
      ensureOpen();
      const needles = purgeOptions.values.map((value) => JSON.stringify(value));
      return reachRedis('purge job payloads', () => purgePayloadsOfAll(directory, commands, needles));
    },

    close(closeOptions) {
      closed ??= (async () => {
        await Promise.all([...processors].map((processor) => processor.stop(closeOptions)));
        await Promise.all([...queues.values()].map((queue) => queue.close()));
        await Promise.all(owned.map(closeClient));
      })();
      return closed;
    },
  };
}

/** Opens a client for `options.connection`, or reuses the caller's when its settings fit. */
function clientFor(
  options: BullMqJobQueueOptions,
  settings: { maxRetriesPerRequest: number | null; enableOfflineQueue: boolean },
  track: (client: Redis) => Redis,
): Redis {
  const connection = options.connection;
  if (connection instanceof Redis) {
    if (settings.maxRetriesPerRequest !== null || connection.options.maxRetriesPerRequest === null) {
      return connection;
    }
    return track(connection.duplicate({ maxRetriesPerRequest: null }));
  }
  return track(new Redis(connection.url, { ...settings, retryStrategy: redisReconnectDelayMs }));
}

/** QUIT lets pending replies arrive; a client that is not connected is just dropped. */
async function closeClient(client: Redis): Promise<void> {
  if (client.status !== 'ready') {
    client.disconnect();
    return;
  }
  await client.quit().catch(() => client.disconnect());
}

async function reachRedis<T>(action: string, operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (error instanceof NexusError) throw error;
    throw new NexusError({
      code: 'internal',
      retryable: true,
      message: `Could not ${action} on Redis: ${error instanceof Error ? error.message : String(error)}`,
      cause: error,
    });
  }
}
