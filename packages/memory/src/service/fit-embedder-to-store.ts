import type { VectorSpace } from '../model/memory-store.ts';

/** What to do with a store when an embedder is wanted (`fitEmbedderToStore`). */
export type EmbedderFit =
  /** The store is indexed with the embedder, every memory has its vector: search is hybrid. */
  | { action: 'use' }
  /** Nothing is stored under another index yet: open the store with the embedder's vectors. */
  | { action: 'fresh' }
  /** Search stays lexical while a background re-index moves the store; `detail` says why. */
  | { action: 'reindex'; detail: string }
  /** Search stays lexical until `nexus memory reindex`; `indexed` says what the store holds. */
  | { action: 'lexical'; indexed: string };

/**
 * Which search a store gets when an embedder is wanted, and when it is re-indexed. A store already
 * indexed with the embedder uses it (a re-index first fills in memories without a vector); one
 * with nothing to move starts with it; any other store stays lexical, moved in the background
 * with `autoReindex`, else left for `nexus memory reindex`, so no memory silently loses its place
 * in search. The embedded store and Qdrant decide alike; the caller opens what this names.
 */
export function fitEmbedderToStore(options: {
  wanted: VectorSpace;
  /** The vector space the store holds; undefined for a lexical store. */
  stored: VectorSpace | undefined;
  /** True when the store holds nothing to move (an empty lexical file, a missing collection). */
  fresh: boolean;
  totalMemories: number;
  /** Memories of the store that have no vector yet (0 when unknown or not asked). */
  withoutVectors: number;
  autoReindex: boolean;
}): EmbedderFit {
  const { wanted, stored, totalMemories } = options;
  const same = stored?.embedderId === wanted.embedderId && stored.dimensions === wanted.dimensions;
  if (same && options.withoutVectors === 0) return { action: 'use' };
  if (same) {
    return {
      action: 'reindex',
      detail: `${options.withoutVectors} of the store's ${totalMemories} memories have no vector yet`,
    };
  }
  if (options.fresh) return { action: 'fresh' };
  const indexed = stored ? `indexed with ${stored.embedderId}` : 'lexical';
  if (options.autoReindex) {
    return { action: 'reindex', detail: `the store's ${totalMemories} memories are ${indexed}` };
  }
  return { action: 'lexical', indexed };
}
