import { setTimeout as sleep } from 'node:timers/promises';
import type { Embedder, MemoryApi, MemoryStore } from '@nexus/memory';
import { SwitchingMemoryService } from '@nexus/memory';
import type { Logger } from '@nexus/protocol';
import type { EmbedderChoice } from './detect-provider-embedder.ts';

export interface RecheckTuning {
  /** First wait before asking the provider again, doubled up to `maxDelayMs` (defaults 15 s and 10 min). */
  firstDelayMs?: number;
  maxDelayMs?: number;
}

/**
 * Search is lexical because the provider served no embeddings at start (the Ollama stack's
 * `nomic-embed-text` still being pulled, say): asks it again with backoff and, once it answers,
 * hands the store to `reindex` — the background re-index that already moves a lexical store to an
 * embedder — so search turns hybrid without a restart. One `MemoryApi` across the change;
 * `health()` says why search is lexical and when the provider is asked next. Never throws.
 */
export function recheckProviderEmbedder(options: {
  lexical: { service: MemoryApi; store: MemoryStore };
  /** Why the first detection found nothing. */
  reason: string;
  detect: () => Promise<EmbedderChoice>;
  /** The background re-index of the lexical store for `embedder`; `reason` says why it is hybrid after. */
  reindex: (
    embedder: Embedder,
    reason: string,
  ) =>
    | { service: MemoryApi; close(): Promise<void> }
    | Promise<{ service: MemoryApi; close(): Promise<void> }>;
  logger: Logger;
  tuning?: RecheckTuning;
}): { service: SwitchingMemoryService; close(): Promise<void> } {
  const { logger } = options;
  const controller = new AbortController();
  let reason = options.reason;
  let nextAt = 0;
  let handedOver: { close(): Promise<void> } | undefined;
  const service = new SwitchingMemoryService({
    initial: options.lexical.service,
    pendingReason: () =>
      `${reason}; asking the provider again in ${Math.max(0, Math.ceil((nextAt - Date.now()) / 1000))} s`,
  });
  const run = async () => {
    let delayMs = options.tuning?.firstDelayMs ?? 15_000;
    const maxDelayMs = options.tuning?.maxDelayMs ?? 600_000;
    logger.info(
      { reason, retryInMs: delayMs },
      'memory: no embeddings at the provider yet; search is lexical, asking again with backoff',
    );
    for (;;) {
      nextAt = Date.now() + delayMs;
      await sleep(delayMs, undefined, { signal: controller.signal });
      const choice = await options.detect();
      if (controller.signal.aborted) return;
      if (choice.embedder) {
        logger.info(
          { embedder: choice.embedder.id, reason: choice.reason },
          'memory: the provider serves embeddings now; moving search to hybrid in the background',
        );
        const next = await options.reindex(choice.embedder, choice.reason);
        if (controller.signal.aborted) {
          await next.close();
          return;
        }
        handedOver = next;
        service.switchTo(next.service);
        return;
      }
      reason = choice.reason;
      delayMs = Math.min(delayMs * 2, maxDelayMs);
    }
  };
  const running = run().catch((error: unknown) => {
    if (controller.signal.aborted) return;
    logger.error(
      { err: error },
      'memory: moving to the provider’s embeddings failed; search stays lexical until the next start',
    );
  });
  return {
    service,
    async close() {
      controller.abort();
      await running;
      if (handedOver) await handedOver.close();
      else await options.lexical.store.close();
    },
  };
}
