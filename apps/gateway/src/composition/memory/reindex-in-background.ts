import {
  type BackgroundReindexOptions,
  type Embedder,
  type MemoryApi,
  type MemoryStore,
  readStoreIndex,
  reindexSqliteStore,
  SwitchingMemoryService,
  startBackgroundReindex,
} from '@nexus/memory';
import type { Logger } from '@nexus/protocol';

/** How long calls already under way on the lexical store get before it closes after the switch. */
const LEXICAL_STORE_GRACE_MS = 5_000;

export type ReindexTuning = Pick<
  BackgroundReindexOptions,
  'batchSize' | 'progressEveryMs' | 'firstRetryDelayMs' | 'maxRetryDelayMs'
>;

/**
 * The lexical service now, and the hybrid one once the store at `path` is re-indexed for
 * `embedder` in the background: one `MemoryApi` across the change, no restart. `close()` stops
 * the re-index between batches (the next start resumes it) and closes whichever stores are open.
 */
export function reindexInBackground(options: {
  path: string;
  embedder: Embedder;
  logger: Logger;
  lexical: { service: MemoryApi; store: MemoryStore };
  /** The hybrid service on the re-indexed store, opened once the re-index is done. */
  openHybrid: () => Promise<{ service: MemoryApi; store: MemoryStore }>;
  tuning?: ReindexTuning;
}): { service: SwitchingMemoryService; close(): Promise<void> } {
  const { logger } = options;
  const reindex = startBackgroundReindex({
    attempt: (attempt) => reindexSqliteStore({ path: options.path, ...attempt }),
    embedder: options.embedder,
    logger,
    ...options.tuning,
  });
  const service = new SwitchingMemoryService({
    initial: options.lexical.service,
    pendingReason: () => reindex.status(),
  });
  const open = new Set<MemoryStore>([options.lexical.store]);
  let closed = false;
  let graceTimer: NodeJS.Timeout | undefined;
  const closeStore = (store: MemoryStore) => {
    if (!open.delete(store)) return Promise.resolve();
    return store
      .close()
      .catch((error: unknown) => logger.warn({ err: error }, 'memory: closing a store failed'));
  };
  // Closing flushes inserts the lexical store still held; any that landed after the swap have no
  // vector: found by BM25 until the next start embeds them (it re-indexes memories without one).
  const closeLexical = async () => {
    await closeStore(options.lexical.store);
    const left = closed ? 0 : (readStoreIndex(options.path)?.withoutVectors ?? 0);
    if (left > 0)
      logger.warn(
        { withoutVectors: left },
        'memory: memories told during the switch have no vector yet; search finds them by words until the next start embeds them',
      );
  };
  const switched = reindex.finished
    .then(async () => {
      if (closed) return;
      const hybrid = await options.openHybrid();
      if (closed) {
        await hybrid.store.close();
        return;
      }
      open.add(hybrid.store);
      service.switchTo(hybrid.service);
      graceTimer = setTimeout(() => void closeLexical(), LEXICAL_STORE_GRACE_MS);
      graceTimer.unref();
    })
    .catch((error: unknown) =>
      logger.error(
        { err: error },
        'memory: the re-indexed store did not open; search stays lexical until the next start',
      ),
    );
  return {
    service,
    async close() {
      closed = true;
      clearTimeout(graceTimer);
      await reindex.stop();
      // `finished` stays pending after a stop, so `switched` is awaited only when it could settle.
      await Promise.race([switched, new Promise((resolve) => setImmediate(resolve))]);
      await Promise.all([...open].map(closeStore));
    },
  };
}
