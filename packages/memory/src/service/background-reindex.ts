import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '@nexus/protocol';
import type { Embedder } from '../embedders/embedder.ts';
import type { ReindexProgress, ReindexResult } from '../sqlite/reindex-sqlite-store.ts';

export interface BackgroundReindex {
  /** Why search is still lexical: `re-indexing for <model>: done/total`, or the failure it waits out. */
  status(): string;
  /** Resolves once the store is on the new embedder (never, when stopped first). */
  readonly finished: Promise<void>;
  /** Stops between batches; what is staged stays, and the next start resumes from it. */
  stop(): Promise<void>;
}

/** What one attempt gets: the embedder (yielding to the event loop before each batch) and the rest. */
export interface ReindexAttempt {
  embedder: Embedder;
  batchSize: number;
  onProgress: (progress: ReindexProgress) => void;
  abortSignal: AbortSignal;
}

export interface BackgroundReindexOptions {
  /**
   * One attempt at moving the store to the embedder (`reindexSqliteStore` on the embedded file,
   * `reindexQdrantStore` on the collection), resuming from what earlier ones left; a rejection is
   * retried with backoff.
   */
  attempt: (attempt: ReindexAttempt) => Promise<ReindexResult>;
  embedder: Embedder;
  logger: Logger;
  /** Texts per embed call (default 64). */
  batchSize?: number;
  /** How often progress is logged at most (default 5 s). */
  progressEveryMs?: number;
  /** First wait after a failure, doubled up to `maxRetryDelayMs` (defaults 1 s and 5 min). */
  firstRetryDelayMs?: number;
  maxRetryDelayMs?: number;
}

/**
 * A re-index (`attempt`) run beside the running service: each batch waits for the event loop to
 * turn first, so turns keep their place; a failure (the embedder unreachable, say) is retried
 * with backoff from what is staged, never dropping anything stored; `stop()` ends it between
 * batches. The caller switches search to hybrid when `finished` resolves.
 */
export function startBackgroundReindex(options: BackgroundReindexOptions): BackgroundReindex {
  const { embedder, logger } = options;
  const target = `${embedder.id} (${embedder.dimensions} dimensions)`;
  const controller = new AbortController();
  let progress: ReindexProgress | undefined;
  let failure: string | undefined;
  let lastLogged = 0;
  const everyMs = options.progressEveryMs ?? 5_000;
  const onProgress = (next: ReindexProgress) => {
    progress = next;
    failure = undefined;
    const now = Date.now();
    if (now - lastLogged >= everyMs || next.done === next.total) {
      lastLogged = now;
      logger.info({ done: next.done, total: next.total, embedder: target }, 'memory: re-indexing');
    }
  };
  // Yields to the event loop before every batch: a burst of batches never holds a turn back.
  const yielding: Embedder = {
    id: embedder.id,
    dimensions: embedder.dimensions,
    async embed(request) {
      await new Promise((resolve) => setImmediate(resolve));
      controller.signal.throwIfAborted();
      return embedder.embed(request);
    },
  };
  const run = async (): Promise<void> => {
    let delayMs = options.firstRetryDelayMs ?? 1_000;
    logger.info({ embedder: target }, 'memory: re-indexing in the background; search is lexical until done');
    for (;;) {
      try {
        const result = await options.attempt({
          embedder: yielding,
          batchSize: options.batchSize ?? 64,
          onProgress,
          abortSignal: controller.signal,
        });
        logger.info(
          { embedder: target, total: result.total, embedded: result.embedded },
          'memory: re-index finished; search is hybrid',
        );
        return;
      } catch (error) {
        if (controller.signal.aborted) throw error;
        const message = error instanceof Error ? error.message : String(error);
        failure = `${message}; retrying in ${Math.round(delayMs / 1000)} s`;
        logger.warn(
          { err: error, embedder: target, retryInMs: delayMs },
          'memory: re-index paused by a failure; search stays lexical, nothing stored is lost',
        );
        await sleep(delayMs, undefined, { signal: controller.signal });
        delayMs = Math.min(delayMs * 2, options.maxRetryDelayMs ?? 300_000);
      }
    }
  };
  const running = run();
  // `finished` never rejects: a stop leaves it pending, and the store as it was.
  const finished = running.then(
    () => {},
    () => new Promise<void>(() => {}),
  );
  return {
    finished,
    status() {
      const counted = progress ? `: ${progress.done}/${progress.total}` : '';
      return `re-indexing for ${target}${counted}${failure ? ` (paused: ${failure})` : ''}`;
    },
    async stop() {
      controller.abort();
      await running.catch(() => {});
    },
  };
}
