import type { Embedder } from './embedder.ts';

export interface CoalescingEmbedderOptions {
  /** Requests to the embedder at once; what comes while they are all out waits and goes together. */
  maxInFlight?: number;
  /** Texts in one combined request at most. */
  maxBatch?: number;
}

interface Waiting {
  texts: readonly string[];
  resolve: (vectors: Float32Array[]) => void;
  reject: (error: unknown) => void;
  onAbort: () => void;
  /** Set once sent: the combined request it is in. */
  batch?: Batch;
}

interface Batch {
  /** Callers still waiting for it; at 0 the request is aborted. */
  waiting: number;
  controller: AbortController;
}

/**
 * Gathers the small embedding requests of concurrent turns (each turn embeds its message to
 * search memory) into one request while earlier ones are still out. An idle gateway sends each
 * at once, as before; under load, N turns waiting cost one request instead of N: one HTTP round
 * trip and one model call (Ollama and local models embed a batch in about the time of one text).
 *
 * Each caller keeps its own abort: an aborted caller leaves the queue, or stops waiting for a
 * combined request already out, which goes on for the others and is aborted once nobody waits
 * for it (so a hanging endpoint does not hold the slots). A failed combined request fails every
 * caller in it, with the embedder's error.
 */
export function coalescingEmbedder(inner: Embedder, options: CoalescingEmbedderOptions = {}): Embedder {
  const maxInFlight = options.maxInFlight ?? 2;
  const maxBatch = options.maxBatch ?? 64;
  const queue: Waiting[] = [];
  let inFlight = 0;

  function drain(): void {
    while (inFlight < maxInFlight && queue.length > 0) {
      const batch: Waiting[] = [];
      let texts = 0;
      while (queue.length > 0 && (batch.length === 0 || texts + queue[0]!.texts.length <= maxBatch)) {
        const next = queue.shift()!;
        batch.push(next);
        texts += next.texts.length;
      }
      send(batch);
    }
  }

  function send(batch: Waiting[]): void {
    inFlight += 1;
    const texts = batch.length === 1 ? batch[0]!.texts : batch.flatMap((waiting) => waiting.texts);
    const sent: Batch = { waiting: batch.length, controller: new AbortController() };
    for (const waiting of batch) waiting.batch = sent;
    inner
      .embed({ texts, abortSignal: sent.controller.signal })
      .then(
        (vectors) => {
          let start = 0;
          for (const waiting of batch) {
            waiting.resolve(vectors.slice(start, start + waiting.texts.length));
            start += waiting.texts.length;
          }
        },
        (error: unknown) => {
          for (const waiting of batch) waiting.reject(error);
        },
      )
      .finally(() => {
        inFlight -= 1;
        drain();
      });
  }

  return {
    id: inner.id,
    dimensions: inner.dimensions,
    embed({ texts, abortSignal }) {
      // Large calls (a re-index, an import) already are batches: they go straight through.
      if (texts.length >= maxBatch) return inner.embed({ texts, abortSignal });
      if (abortSignal?.aborted) return Promise.reject(abortSignal.reason);
      return new Promise<Float32Array[]>((resolve, reject) => {
        const settled = () => abortSignal?.removeEventListener('abort', waiting.onAbort);
        const waiting: Waiting = {
          texts,
          resolve: (vectors) => {
            settled();
            resolve(vectors);
          },
          reject: (error) => {
            settled();
            reject(error);
          },
          // Queued: it leaves the queue. Sent: the request goes on for the others, if any.
          onAbort: () => {
            const index = queue.indexOf(waiting);
            if (index !== -1) queue.splice(index, 1);
            if (waiting.batch && --waiting.batch.waiting === 0)
              waiting.batch.controller.abort(abortSignal?.reason);
            waiting.reject(abortSignal?.reason);
          },
        };
        abortSignal?.addEventListener('abort', waiting.onAbort, { once: true });
        queue.push(waiting);
        drain();
      });
    },
  };
}
