import type { Memory, MemoryScope, MemoryStats } from './memory.ts';

/** Which embedding model produced a store's vectors, so two models are never mixed. */
export interface VectorSpace {
  embedderId: string;
  dimensions: number;
}

interface StoreCallOptions {
  abortSignal?: AbortSignal | undefined;
}

export interface StoreWriteOptions extends StoreCallOptions {
  memory: Memory;
  /** Omitted when no embedder is configured; the memory is then found lexically only. */
  embedding?: Float32Array | undefined;
}

export interface StoreSearchOptions extends StoreCallOptions {
  /** The partition searched; nothing outside it may ever be returned. */
  userId: string;
  /** Raw query text; each store runs BM25 over it its own way. */
  text: string;
  /**
   * Words of the conversation around the query (its recent turns): matched too, at a lower
   * weight than `text`'s (`CONTEXT_WEIGHT`), so they find what a follow-up refers to without
   * outranking what the message itself names.
   */
  contextText?: string | undefined;
  /** Query vector for the dense channel; omitted = lexical only. */
  embedding?: Float32Array | undefined;
  limit: number;
  /** Only memories of these scopes (all scopes when omitted). */
  scopes?: readonly MemoryScope[] | undefined;
  /** Only memories linked to this session. */
  sessionId?: string | undefined;
}

/**
 * A search hit with its fused relevance in [0, 1]. Every store fuses its lexical (BM25) and
 * dense (cosine) rankings with `fuseRankings`, so scores agree across stores whenever their
 * rankings agree.
 */
export interface StoreSearchHit {
  memory: Memory;
  relevance: number;
}

export interface StoreListOptions extends StoreCallOptions {
  userId: string;
  scopes?: readonly MemoryScope[] | undefined;
  sessionId?: string | undefined;
  limit: number;
  offset: number;
}

export interface StoreStandingOptions extends StoreCallOptions {
  userId: string;
  limit: number;
  /**
   * Best first. Must put newer before older within one category and source (ties by id
   * ascending), as any recency score plus a per-kind prior does: then each kind is read newest
   * first from an index and merged, never the person's whole memory.
   */
  order: (left: Memory, right: Memory) => number;
}

/**
 * Where memories live. A plain port: the embedded SQLite store and the Qdrant store both pass
 * `describeMemoryStoreContract`. Every read and write names the person (`userId`) and must
 * never touch another person's memories. Scoring policy (recency, tie-breaks, budgets) lives
 * in `MemoryService`, not here.
 */
export interface MemoryStore {
  /** The embedder whose vectors this store holds; undefined = lexical only. */
  readonly vectorSpace: VectorSpace | undefined;
  insert(options: StoreWriteOptions): Promise<void>;
  /** Inserts many memories in one transaction / request (bulk import, benchmarks). */
  insertMany(
    options: StoreCallOptions & { items: ReadonlyArray<Omit<StoreWriteOptions, 'abortSignal'>> },
  ): Promise<void>;
  /** Replaces the memory with the same id and person (content, hash, vector, times). */
  update(options: StoreWriteOptions): Promise<void>;
  get(options: StoreCallOptions & { userId: string; id: string }): Promise<Memory | undefined>;
  findByHash(options: StoreCallOptions & { userId: string; hash: string }): Promise<Memory | undefined>;
  /** The person's memories closest to `embedding`, cosine similarity in [-1, 1], best first. */
  nearest(
    options: StoreCallOptions & { userId: string; embedding: Float32Array; limit: number },
  ): Promise<Array<{ memory: Memory; similarity: number }>>;
  search(options: StoreSearchOptions): Promise<StoreSearchHit[]>;
  /** Newest first (by `updatedAt`, then id). */
  list(options: StoreListOptions): Promise<Memory[]>;
  /**
   * The person's `limit` best user-scope memories by `order` (standing facts): an indexed read of
   * each category and source, newest first, that stops once the best `limit` are known.
   */
  standing(options: StoreStandingOptions): Promise<Memory[]>;
  /** Deletes the memory and its session links; false when the person has no such memory. */
  delete(options: StoreCallOptions & { userId: string; id: string }): Promise<boolean>;
  /** Deletes every memory (and session link) of the person; returns how many memories. */
  reset(options: StoreCallOptions & { userId: string }): Promise<number>;
  linkSession(
    options: StoreCallOptions & { userId: string; memoryId: string; sessionId: string },
  ): Promise<void>;
  /** Memories linked to the session, oldest first; restricted to one person when `userId` is set. */
  sessionMemories(
    options: StoreCallOptions & { sessionId: string; userId?: string | undefined },
  ): Promise<Memory[]>;
  markUsed(options: StoreCallOptions & { ids: readonly string[]; at: number }): Promise<void>;
  stats(options?: StoreCallOptions & { userId?: string | undefined }): Promise<MemoryStats>;
  close(): Promise<void>;
}
