import type { Embedder, MemoryApi, MemoryStore } from '@nexus/memory';
import { SwitchingMemoryService, startBackgroundReindex } from '@nexus/memory';
import type { Logger } from '@nexus/protocol';
import type { ReindexTuning } from './reindex-in-background.ts';

/**
 * `reindexInBackground` for Qdrant: the lexical service on the live collection now, and the
 * hybrid one once `reindexQdrantStore` has copied the collection for `embedder` and pointed the
 * configured name at the copy; one `MemoryApi` across the change, no restart. The copy's last
 * pass and the alias switch run with this service's writes held, and the service changes hands
 * inside that hold, so nothing told, changed, deleted or forgotten here is missed by the copy.
 * `close()` stops it between batches; the next start resumes (points copied are kept).
 */
export function reindexQdrantInBackground(options: {
  qdrant: { url: string; apiKey?: string; collection: string };
  embedder: Embedder;
  logger: Logger;
  lexical: { service: MemoryApi; store: MemoryStore };
  /** The hybrid service on the re-indexed collection, by its own name (the alias follows). */
  openHybrid: (collection: string) => Promise<{ service: MemoryApi; store: MemoryStore }>;
  tuning?: ReindexTuning;
}): { service: SwitchingMemoryService; close(): Promise<void> } {
  const { logger } = options;
  const open = new Set<MemoryStore>([options.lexical.store]);
  const service: SwitchingMemoryService = new SwitchingMemoryService({
    initial: options.lexical.service,
    pendingReason: () => reindex.status(),
  });
  const reindex = startBackgroundReindex({
    embedder: options.embedder,
    logger,
    ...options.tuning,
    async attempt(attempt) {
      // Imported only with NEXUS_QDRANT_URL, like the store itself.
      const { reindexQdrantStore } = await import('@nexus/memory-qdrant');
      return reindexQdrantStore({
        url: options.qdrant.url,
        ...(options.qdrant.apiKey ? { apiKey: options.qdrant.apiKey } : {}),
        collection: options.qdrant.collection,
        ...attempt,
        holdWrites: (finalStep) => service.holdWrites(finalStep),
        // Opened before the switch: a failure here leaves everything on the old collection.
        async beforeSwitch(collection) {
          const hybrid = await options.openHybrid(collection);
          open.add(hybrid.store);
          return () => service.switchTo(hybrid.service);
        },
      });
    },
  });
  return {
    service,
    async close() {
      await reindex.stop();
      await Promise.all(
        [...open].map((store) =>
          store
            .close()
            .catch((error: unknown) => logger.warn({ err: error }, 'memory: closing a store failed')),
        ),
      );
    },
  };
}
