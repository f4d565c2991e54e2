import {
  type ChannelRanking,
  EmbedderMismatchError,
  fuseRankings,
  GLOBAL_USER_ID,
  type Memory,
  MemoryIdTakenError,
  type MemoryScope,
  type MemoryStats,
  type MemoryStore,
  MemoryStoreError,
  mergeStandingKinds,
  newestFirst,
  STANDING_KINDS,
  type StoreListOptions,
  type StoreSearchHit,
  type StoreSearchOptions,
  type StoreStandingOptions,
  type StoreWriteOptions,
  type VectorSpace,
} from '@nexus/memory';
import type { QdrantClient } from '@qdrant/js-client-rest';
import { qdrantClientFor } from './qdrant-client-for.ts';
import { guard } from './qdrant-errors.ts';
import { type SparseTerms, sparseDocumentVector, sparseQueryVector } from './sparse-bm25.ts';

export interface QdrantMemoryStoreOptions {
  /** A configured client, or `url` (+ `apiKey`) to make one. */
  client?: QdrantClient;
  url?: string | undefined;
  apiKey?: string | undefined;
  collection: string;
  /** The embedder whose vectors are stored; omit for lexical (sparse BM25) only. */
  vectors?: VectorSpace | undefined;
}

const DENSE = 'dense';
const SPARSE = 'bm25';
const SCROLL_LIMIT = 10_000;

type Payload = Omit<Memory, 'id' | 'sessionId' | 'lastUsedAt'> & {
  sessionId: string | null;
  sessionIds: string[];
  lastUsedAt: number | null;
};

type Point = {
  id: string | number;
  payload?: Record<string, unknown> | null;
  vector?: unknown;
  score?: number;
};

/**
 * Memories in one Qdrant collection: the person is a keyword payload index with
 * `is_tenant: true`, every point carries a dense vector (when an embedder is set) and a sparse
 * BM25 vector (IDF applied by Qdrant). Collection and indexes are created idempotently here.
 */
export async function openQdrantMemoryStore(options: QdrantMemoryStoreOptions): Promise<MemoryStore> {
  const client = qdrantClientFor(options);
  const name = options.collection;
  await assertServerVersion(client);
  await guard('create collection', async () => {
    const { exists } = await client.collectionExists(name);
    if (exists) return;
    await client
      .createCollection(name, {
        vectors: options.vectors ? { [DENSE]: { size: options.vectors.dimensions, distance: 'Cosine' } } : {},
        sparse_vectors: { [SPARSE]: { modifier: 'idf' } },
        metadata: {
          ...(options.vectors ? { embedderId: options.vectors.embedderId } : {}),
          sparseTerms: 'stems',
        },
      })
      .catch(async (error: unknown) => {
        // Another process created it between our check and our create: that is fine.
        if ((error as { status?: number }).status !== 409 || !(await client.collectionExists(name)).exists)
          throw error;
      });
  });
  const info = await guard('read collection', () => client.getCollection(name));
  const dense = (info.config.params.vectors as Record<string, { size?: number }> | undefined)?.[DENSE];
  const metadata = (info.config as { metadata?: { embedderId?: string; sparseTerms?: string } }).metadata;
  const storedId = metadata?.embedderId;
  // A collection created before its sparse vectors were made of stems keeps its own terms.
  const sparseTerms: SparseTerms = metadata?.sparseTerms === 'stems' ? 'stems' : 'light-fold';
  const stored = dense?.size ? { embedderId: storedId ?? 'unknown', dimensions: dense.size } : undefined;
  if (
    options.vectors &&
    (stored?.dimensions !== options.vectors.dimensions ||
      (storedId && storedId !== options.vectors.embedderId))
  ) {
    throw new EmbedderMismatchError({
      stored: stored ? `${stored.embedderId} (${stored.dimensions} dimensions)` : 'no dense vectors',
      configured: `${options.vectors.embedderId} (${options.vectors.dimensions} dimensions)`,
    });
  }
  const indexes: Array<
    [string, NonNullable<Parameters<QdrantClient['createPayloadIndex']>[1]['field_schema']>]
  > = [
    ['userId', { type: 'keyword', is_tenant: true }],
    ['hash', 'keyword'],
    ['scope', 'keyword'],
    ['sessionIds', 'keyword'],
    // Standing facts: each category and source read newest first with `order_by` on `updatedAt`.
    ['category', 'keyword'],
    ['source', 'keyword'],
    ['updatedAt', 'integer'],
  ];
  for (const [field, schema] of indexes) {
    await guard(`create index ${field}`, () =>
      client.createPayloadIndex(name, { field_name: field, field_schema: schema, wait: true }),
    );
  }
  return new QdrantMemoryStore(client, name, options.vectors ?? stored, sparseTerms);
}

class QdrantMemoryStore implements MemoryStore {
  readonly vectorSpace: VectorSpace | undefined;
  readonly #client: QdrantClient;
  readonly #name: string;

  readonly #sparseTerms: SparseTerms;

  constructor(
    client: QdrantClient,
    name: string,
    vectorSpace: VectorSpace | undefined,
    sparseTerms: SparseTerms,
  ) {
    this.#sparseTerms = sparseTerms;
    this.#client = client;
    this.#name = name;
    this.vectorSpace = vectorSpace;
  }

  async insert(options: StoreWriteOptions): Promise<void> {
    await this.insertMany({ items: [options], abortSignal: options.abortSignal });
  }

  async insertMany(options: {
    items: ReadonlyArray<Omit<StoreWriteOptions, 'abortSignal'>>;
    abortSignal?: AbortSignal | undefined;
  }) {
    options.abortSignal?.throwIfAborted();
    if (options.items.length === 0) return;
    const points = options.items.map(({ memory, embedding }) =>
      this.#point(memory, memory.sessionId ? [memory.sessionId] : [], embedding),
    );
    // An insert must never overwrite a memory (an import can name an id another person's memory
    // has). Qdrant's insert-only mode (1.17+) makes that the server's rule, so two concurrent
    // writers cannot both pass a read-then-write check; it skips a taken id silently, so the ids
    // are read back to see whose each one now is.
    await guard('insert', () =>
      this.#client.upsert(this.#name, { wait: true, points, update_mode: 'insert_only' }),
    );
    const stored = await guard('retrieve', () =>
      this.#client.retrieve(this.#name, {
        ids: points.map((point) => point.id),
        with_payload: ['userId', 'hash', 'createdAt'],
        with_vector: false,
      }),
    );
    const written = new Map(points.map((point) => [String(point.id).toLowerCase(), point.payload]));
    const taken = stored.filter(
      (point) => !isSameWrite(point.payload, written.get(String(point.id).toLowerCase())),
    );
    if (taken.length === 0) return;
    // All or nothing, as before: the points this call did write are removed again.
    const takenIds = new Set(taken.map((point) => String(point.id).toLowerCase()));
    const ours = points.filter((point) => !takenIds.has(String(point.id).toLowerCase()));
    if (ours.length > 0)
      await guard('delete', () =>
        this.#client.delete(this.#name, { wait: true, points: ours.map((point) => point.id) }),
      );
    throw new MemoryIdTakenError({ id: String(taken[0]?.id) });
  }

  async update(options: StoreWriteOptions): Promise<void> {
    const existing = await this.#owned(options.memory.userId, options.memory.id, true);
    if (!existing)
      throw new MemoryStoreError({ message: `No memory ${options.memory.id} for this person to update.` });
    const payload = existing.payload as unknown as Payload;
    const sessions = new Set(payload.sessionIds);
    if (options.memory.sessionId) sessions.add(options.memory.sessionId);
    const previous = (existing.vector as Record<string, unknown> | undefined)?.[DENSE] as
      | number[]
      | undefined;
    const embedding = options.embedding ?? (previous ? Float32Array.from(previous) : undefined);
    const point = this.#point(options.memory, [...sessions], embedding);
    await guard('update', () => this.#client.upsert(this.#name, { wait: true, points: [point] }));
  }

  async get(options: { userId: string; id: string; abortSignal?: AbortSignal }) {
    const point = await this.#owned(options.userId, options.id, false);
    return point ? memoryOf(point) : undefined;
  }

  async findByHash(options: { userId: string; hash: string; abortSignal?: AbortSignal }) {
    const filter = { must: [match('userId', options.userId), match('hash', options.hash)] };
    const result = await guard('scroll', () =>
      this.#client.scroll(this.#name, { filter, limit: 1, with_payload: true }),
    );
    const [point] = result.points;
    return point ? memoryOf(point) : undefined;
  }

  async nearest(options: {
    userId: string;
    embedding: Float32Array;
    limit: number;
    abortSignal?: AbortSignal;
  }) {
    if (!this.vectorSpace) return [];
    const result = await guard('query', () =>
      this.#client.query(this.#name, {
        query: Array.from(options.embedding),
        using: DENSE,
        filter: { must: [match('userId', options.userId)] },
        limit: options.limit,
        with_payload: true,
      }),
    );
    return result.points.map((point) => ({ memory: memoryOf(point), similarity: point.score }));
  }

  async search(options: StoreSearchOptions): Promise<StoreSearchHit[]> {
    options.abortSignal?.throwIfAborted();
    const filter = personFilter(options.userId, options.scopes, options.sessionId);
    const candidates = Math.max(options.limit * 4, 40);
    const sparse = sparseQueryVector(options.text, options.contextText, this.#sparseTerms);
    const searches: Array<Record<string, unknown>> = [];
    if (sparse.indices.length > 0)
      searches.push({ query: sparse, using: SPARSE, filter, limit: candidates, with_payload: true });
    if (options.embedding && this.vectorSpace) {
      searches.push({
        query: Array.from(options.embedding),
        using: DENSE,
        filter,
        limit: candidates,
        with_payload: true,
      });
    }
    if (searches.length === 0) return [];
    const batches = await guard('query batch', () =>
      this.#client.queryBatch(this.#name, {
        searches: searches as Parameters<QdrantClient['queryBatch']>[1]['searches'],
      }),
    );
    const memories = new Map<string, Memory>();
    const rankings: ChannelRanking[] = batches.map((batch) =>
      batch.points.map((point) => {
        const memory = memoryOf(point);
        memories.set(memory.id, memory);
        return { id: memory.id, score: point.score };
      }),
    );
    const relevance = fuseRankings(rankings);
    return [...memories.values()]
      .filter((memory) => memory.userId === options.userId)
      .map((memory) => ({ memory, relevance: relevance.get(memory.id) ?? 0 }))
      .sort((left, right) => right.relevance - left.relevance)
      .slice(0, options.limit);
  }

  async list(options: StoreListOptions): Promise<Memory[]> {
    const result = await guard('scroll', () =>
      this.#client.scroll(this.#name, {
        filter: personFilter(options.userId, options.scopes, options.sessionId),
        limit: options.offset + options.limit,
        order_by: { key: 'updatedAt', direction: 'desc' },
        with_payload: true,
      }),
    );
    return result.points
      .map(memoryOf)
      .sort((left, right) => right.updatedAt - left.updatedAt || (left.id < right.id ? 1 : -1))
      .slice(options.offset, options.offset + options.limit);
  }

  /**
   * Each category and source newest first (`order_by` on the `updatedAt` range index), `limit`
   * points each in parallel, merged. Qdrant leaves the order of equal `updatedAt` open, so when a
   * kind fills its `limit`, the points sharing its last time are read too and ordered by id.
   */
  async standing(options: StoreStandingOptions): Promise<Memory[]> {
    options.abortSignal?.throwIfAborted();
    const newest = async (must: object[], limit: number) =>
      (
        await guard('scroll', () =>
          this.#client.scroll(this.#name, {
            filter: { must },
            limit,
            order_by: { key: 'updatedAt', direction: 'desc' },
            with_payload: true,
          }),
        )
      ).points.map(memoryOf);
    const kinds = await Promise.all(
      STANDING_KINDS.map(async ({ category, source }) => {
        const must = [
          match('userId', options.userId),
          match('scope', 'user'),
          match('category', category),
          match('source', source),
        ];
        const memories = await newest(must, options.limit);
        const last = memories.at(-1);
        if (memories.length < options.limit || !last) return memories.sort(newestFirst);
        const tied = await newest(
          [...must, { key: 'updatedAt', range: { gte: last.updatedAt, lte: last.updatedAt } }],
          SCROLL_LIMIT,
        );
        const byId = new Map([...memories, ...tied].map((memory) => [memory.id, memory]));
        return [...byId.values()].sort(newestFirst);
      }),
    );
    return mergeStandingKinds(
      kinds.map((memories) => memories.values()),
      options.order,
      options.limit,
    );
  }

  async delete(options: { userId: string; id: string; abortSignal?: AbortSignal }): Promise<boolean> {
    if (!(await this.#owned(options.userId, options.id, false))) return false;
    await guard('delete', () => this.#client.delete(this.#name, { wait: true, points: [options.id] }));
    return true;
  }

  async reset(options: { userId: string; abortSignal?: AbortSignal }): Promise<number> {
    const filter = { must: [match('userId', options.userId)] };
    const { count } = await guard('count', () => this.#client.count(this.#name, { filter, exact: true }));
    await guard('delete', () => this.#client.delete(this.#name, { wait: true, filter }));
    return count;
  }

  async linkSession(options: {
    userId: string;
    memoryId: string;
    sessionId: string;
    abortSignal?: AbortSignal;
  }) {
    const point = await this.#owned(options.userId, options.memoryId, false);
    if (!point) return;
    const sessions = new Set((point.payload as unknown as Payload).sessionIds);
    if (sessions.has(options.sessionId)) return;
    sessions.add(options.sessionId);
    await guard('set payload', () =>
      this.#client.setPayload(this.#name, {
        wait: true,
        points: [options.memoryId],
        payload: { sessionIds: [...sessions] },
      }),
    );
  }

  async sessionMemories(options: { sessionId: string; userId?: string; abortSignal?: AbortSignal }) {
    const must = [match('sessionIds', options.sessionId)];
    if (options.userId !== undefined) must.push(match('userId', options.userId));
    const result = await guard('scroll', () =>
      this.#client.scroll(this.#name, { filter: { must }, limit: SCROLL_LIMIT, with_payload: true }),
    );
    return result.points
      .map(memoryOf)
      .sort((left, right) => left.createdAt - right.createdAt || (left.id < right.id ? -1 : 1));
  }

  async markUsed(options: { ids: readonly string[]; at: number; abortSignal?: AbortSignal }): Promise<void> {
    if (options.ids.length === 0) return;
    await guard('set payload', () =>
      this.#client.setPayload(this.#name, {
        wait: true,
        points: [...options.ids],
        payload: { lastUsedAt: options.at },
      }),
    );
  }

  async stats(options: { userId?: string; abortSignal?: AbortSignal } = {}): Promise<MemoryStats> {
    const facet = (key: string, filter?: object) =>
      guard('facet', () =>
        this.#client.facet(this.#name, { key, ...(filter ? { filter } : {}), limit: 1_000_000, exact: true }),
      );
    const [{ count }, people, sessions] = await Promise.all([
      guard('count', () => this.#client.count(this.#name, { exact: true })),
      facet('userId'),
      facet('sessionIds'),
    ]);
    const persons = people.hits.filter((hit) => hit.value !== GLOBAL_USER_ID);
    const selected = persons.filter((hit) => options.userId === undefined || hit.value === options.userId);
    const users = await Promise.all(
      selected.map(async (hit) => ({
        userId: String(hit.value),
        memories: hit.count,
        sessions: (await facet('sessionIds', { must: [match('userId', String(hit.value))] })).hits.length,
      })),
    );
    return {
      totalMemories: count,
      totalUsers: persons.length,
      totalSessions: sessions.hits.length,
      globalMemories: people.hits.find((hit) => hit.value === GLOBAL_USER_ID)?.count ?? 0,
      users: users.sort((left, right) => (left.userId < right.userId ? -1 : 1)),
    };
  }

  async close(): Promise<void> {}

  async #owned(userId: string, id: string, withVector: boolean): Promise<Point | undefined> {
    const points = await guard('retrieve', () =>
      this.#client.retrieve(this.#name, {
        ids: [id],
        with_payload: true,
        with_vector: withVector ? [DENSE] : false,
      }),
    );
    const [point] = points;
    return point && (point.payload as Partial<Payload> | undefined)?.userId === userId ? point : undefined;
  }

  #point(memory: Memory, sessionIds: string[], embedding: Float32Array | undefined) {
    const vector: Record<string, number[] | { indices: number[]; values: number[] }> = {};
    const sparse = sparseDocumentVector(memory.content, this.#sparseTerms);
    if (sparse.indices.length > 0) vector[SPARSE] = sparse;
    if (embedding && this.vectorSpace) vector[DENSE] = Array.from(embedding);
    const payload: Payload = {
      userId: memory.userId,
      scope: memory.scope,
      sessionId: memory.sessionId ?? null,
      sessionIds,
      content: memory.content,
      category: memory.category,
      source: memory.source,
      createdAt: memory.createdAt,
      updatedAt: memory.updatedAt,
      lastUsedAt: memory.lastUsedAt ?? null,
      hash: memory.hash,
      metadata: memory.metadata,
    };
    return { id: memory.id, vector, payload: payload as unknown as Record<string, unknown> };
  }
}

function match(key: string, value: string) {
  return { key, match: { value } };
}

function personFilter(
  userId: string,
  scopes: readonly MemoryScope[] | undefined,
  sessionId: string | undefined,
) {
  const must: object[] = [match('userId', userId)];
  if (scopes) must.push({ key: 'scope', match: { any: [...scopes] } });
  if (sessionId !== undefined) must.push(match('sessionIds', sessionId));
  return { must };
}

function memoryOf(point: Point): Memory {
  const payload = point.payload as unknown as Payload;
  const memory: Memory = {
    id: String(point.id),
    userId: payload.userId,
    scope: payload.scope,
    content: payload.content,
    category: payload.category,
    source: payload.source,
    createdAt: payload.createdAt,
    updatedAt: payload.updatedAt,
    hash: payload.hash,
    metadata: payload.metadata ?? {},
  };
  if (payload.sessionId) memory.sessionId = payload.sessionId;
  if (typeof payload.lastUsedAt === 'number') memory.lastUsedAt = payload.lastUsedAt;
  return memory;
}

/** Qdrant's `update_mode` (`insert_only`) arrived in 1.17; an older server ignores the field and overwrites. */
const MINIMUM_SERVER = { major: 1, minor: 17 };

async function assertServerVersion(client: QdrantClient): Promise<void> {
  const { version } = await guard('read version', () => client.versionInfo());
  const [major = 0, minor = 0] = String(version).split('.').map(Number);
  if (major !== MINIMUM_SERVER.major || minor < MINIMUM_SERVER.minor)
    throw new MemoryStoreError({
      message: `Qdrant server ${version} is too old: Nexus needs 1.${MINIMUM_SERVER.minor} or newer (insert-only writes); docker-compose.yml deploys qdrant/qdrant:v1.19.0.`,
      retryable: false,
    });
}

function isSameWrite(
  stored: Record<string, unknown> | null | undefined,
  written: object | undefined,
): boolean {
  const mine = written as Record<string, unknown> | undefined;
  return (
    stored !== null &&
    stored !== undefined &&
    mine !== undefined &&
    stored.userId === mine.userId &&
    stored.hash === mine.hash &&
    stored.createdAt === mine.createdAt
  );
}
