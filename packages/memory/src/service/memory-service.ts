import { randomUUID } from 'node:crypto';
import { sharedTokenCounter, type TokenCounter } from '@nexus/limits-kit';
import { type Logger, silentLogger } from '@nexus/protocol';
import { coalescingEmbedder } from '../embedders/coalescing-embedder.ts';
import type { Embedder } from '../embedders/embedder.ts';
import { contentHash } from '../model/content-hash.ts';
import { GLOBAL_USER_ID, type Memory, type MemoryStats } from '../model/memory.ts';
import {
  type AddMemoryOptions,
  type AddMemoryResult,
  addMemoryOptionsSchema,
  type ListMemoriesOptions,
  listMemoriesOptionsSchema,
  type MemoryApi,
  type MemoryContext,
  type MemoryContextOptions,
  type MemoryHealth,
  type MemoryRefOptions,
  type MemorySearchResult,
  memoryRefOptionsSchema,
  resetOptionsSchema,
  type SearchMemoryOptions,
  type StandingFactsOptions,
  searchMemoryOptionsSchema,
  sessionMemoriesOptionsSchema,
  standingFactsOptionsSchema,
  statsOptionsSchema,
  type UpdateMemoryOptions,
  updateMemoryOptionsSchema,
} from '../model/memory-api.ts';
import { EmbedderMismatchError, MemoryIdTakenError, MemoryInputError } from '../model/memory-errors.ts';
import type { MemoryStore } from '../model/memory-store.ts';
import { parseContextOptions } from '../model/parse-context-options.ts';
import { parseInput } from '../model/parse-input.ts';
import { conversationQuery } from '../ranking/conversation-query.ts';
import { compareRanked, DAY_MS, memoryScore, type ScoringOptions } from '../ranking/memory-scoring.ts';
import { queryTime, timeBonus } from '../ranking/query-time.ts';
import { compareStanding } from '../ranking/standing-order.ts';
import { buildMemoryContext } from './build-memory-context.ts';
import { findLexicalDuplicate, LEXICAL_DUPLICATE_THRESHOLD } from './near-duplicate.ts';
import { inProcessPersonLane, type PersonLane } from './person-lane.ts';
import { updateMemory } from './update-memory.ts';

export interface MemoryServiceOptions {
  store: MemoryStore;
  /** Omit for lexical-only search (announced once at start, never faked with made-up vectors). */
  embedder?: Embedder | undefined;
  scoring?: ScoringOptions;
  /** Why search is hybrid or lexical here, for `health()` and the start log. */
  searchReason?: string;
  /** Cosine similarity at or above which a new memory updates an existing one (default 0.92). */
  duplicateThreshold?: number;
  /**
   * With no embedder: token-set similarity (`tokenSetSimilarity`) at or above which a new memory
   * updates an existing one (default `LEXICAL_DUPLICATE_THRESHOLD`, 0.8); above 1 turns it off.
   */
  lexicalDuplicateThreshold?: number;
  /** Each context scope that takes longer is skipped (default 1,500 ms). */
  scopeTimeoutMs?: number;
  tokenCounter?: TokenCounter;
  now?: () => number;
  generateId?: () => string;
  logger?: Logger;
  /** Where one person's writes queue (default: in this process); replicas on one store share one. */
  lane?: PersonLane;
}

type Ranked = MemorySearchResult & { memory: Memory };

/** Per-person memory: dedupe on add, hybrid search, token-budgeted context. */
export class MemoryService implements MemoryApi {
  readonly #store: MemoryStore;
  /** Wrapped so that the small embeds of concurrent calls go to the endpoint together. */
  readonly #embedder: Embedder | undefined;
  readonly #scoring: ScoringOptions;
  readonly #searchReason: string | undefined;
  readonly #duplicateThreshold: number;
  readonly #lexicalDuplicateThreshold: number;
  readonly #scopeTimeoutMs: number;
  readonly #now: () => number;
  readonly #generateId: () => string;
  readonly #logger: Logger;
  readonly #lane: PersonLane;
  /** lastUsedAt writes started by `context` and not settled yet (`#recordUsedLater`). */
  readonly #usesBeingRecorded = new Set<Promise<void>>();
  #tokenCounter: TokenCounter | Promise<TokenCounter>;

  constructor(options: MemoryServiceOptions) {
    this.#store = options.store;
    this.#embedder = options.embedder ? coalescingEmbedder(options.embedder) : undefined;
    this.#scoring = options.scoring ?? {};
    this.#searchReason = options.searchReason;
    this.#duplicateThreshold = options.duplicateThreshold ?? 0.92;
    this.#lexicalDuplicateThreshold = options.lexicalDuplicateThreshold ?? LEXICAL_DUPLICATE_THRESHOLD;
    this.#scopeTimeoutMs = options.scopeTimeoutMs ?? 1_500;
    this.#now = options.now ?? Date.now;
    this.#generateId = options.generateId ?? randomUUID;
    this.#logger = options.logger ?? silentLogger;
    this.#tokenCounter = options.tokenCounter ?? sharedTokenCounter();
    this.#lane = options.lane ?? inProcessPersonLane();
    const space = this.#store.vectorSpace;
    if (this.#embedder && space && space.embedderId !== this.#embedder.id) {
      throw new EmbedderMismatchError({ stored: space.embedderId, configured: this.#embedder.id });
    }
    if (this.#embedder && space?.dimensions !== this.#embedder.dimensions) {
      throw new EmbedderMismatchError({
        stored: space ? `${space.embedderId} (${space.dimensions} dimensions)` : 'no vectors',
        configured: `${this.#embedder.id} (${this.#embedder.dimensions} dimensions)`,
      });
    }
    if (!this.#embedder)
      this.#logger.info(
        { search: 'lexical', reason: this.#searchReason ?? 'no embedder configured' },
        'memory: no embedder, search is lexical only',
      );
    else
      this.#logger.info(
        {
          search: 'hybrid',
          embedder: this.#embedder.id,
          reason: this.#searchReason ?? 'embedder configured',
        },
        'memory: semantic search on (hybrid with lexical)',
      );
  }

  async add(options: AddMemoryOptions): Promise<AddMemoryResult> {
    const input = parseInput(addMemoryOptionsSchema, options);
    const userId = input.scope === 'global' ? GLOBAL_USER_ID : input.userId;
    if (userId === undefined)
      throw new MemoryInputError({ field: 'userId', message: 'Invalid userId: required.' });
    if (input.scope !== 'global' && userId === GLOBAL_USER_ID) {
      throw new MemoryInputError({
        field: 'userId',
        message: `Invalid userId: "${GLOBAL_USER_ID}" is reserved for global memories.`,
      });
    }
    if (input.scope === 'global' && input.userId !== undefined && input.userId !== GLOBAL_USER_ID) {
      throw new MemoryInputError({
        field: 'userId',
        message: `Invalid userId: global memories belong to "${GLOBAL_USER_ID}".`,
      });
    }
    if (input.scope === 'session' && input.sessionId === undefined) {
      throw new MemoryInputError({
        field: 'sessionId',
        message: 'Invalid sessionId: required for scope "session".',
      });
    }
    // One add at a time per person, so two concurrent copies of a fact cannot both be inserted.
    return this.#inLane(userId, () => this.#addInLane(userId, input));
  }

  async update(options: UpdateMemoryOptions): Promise<Memory | undefined> {
    await this.#usesRecorded();
    const input = parseInput(updateMemoryOptionsSchema, options);
    // In the person's add lane, so an add racing the edit cannot insert the edited text twice.
    return this.#inLane(input.userId, () =>
      updateMemory(
        { store: this.#store, embed: (text, signal) => this.#embed(text, signal), now: this.#now },
        input,
      ),
    );
  }

  #inLane<T>(userId: string, work: () => Promise<T>): Promise<T> {
    return this.#lane.run(userId, work);
  }

  async #addInLane(
    userId: string,
    input: ReturnType<typeof addMemoryOptionsSchema.parse>,
  ): Promise<AddMemoryResult> {
    const { abortSignal } = input;
    const hash = contentHash(input.content);
    // An import run twice finds its memories by id (even if edited since) or by content.
    const known = input.id ? await this.#store.get({ userId, id: input.id, abortSignal }) : undefined;
    const exact = known ?? (await this.#store.findByHash({ userId, hash, abortSignal }));
    if (exact) {
      if (input.sessionId)
        await this.#store.linkSession({
          userId,
          memoryId: exact.id,
          sessionId: input.sessionId,
          abortSignal,
        });
      return { action: 'unchanged', deduplicated: true, memory: exact };
    }
    const now = this.#now();
    const embedding = await this.#embed(input.content, abortSignal);
    const duplicate = embedding
      ? (await this.#store.nearest({ userId, embedding, limit: 1, abortSignal }))[0]
      : this.#lexicalDuplicateThreshold <= 1
        ? await findLexicalDuplicate({
            store: this.#store,
            userId,
            content: input.content,
            threshold: this.#lexicalDuplicateThreshold,
            abortSignal,
          })
        : undefined;
    const threshold = embedding ? this.#duplicateThreshold : this.#lexicalDuplicateThreshold;
    if (duplicate && duplicate.similarity >= threshold) {
      const previous = duplicate.memory;
      const memory: Memory = {
        ...previous,
        content: input.content,
        hash,
        category: input.category,
        // A restated fact keeps the strongest provenance it ever had.
        source: previous.source === 'user_explicit' ? 'user_explicit' : input.source,
        updatedAt: Math.max(previous.updatedAt, input.updatedAt ?? now),
        metadata: { ...previous.metadata, ...input.metadata },
      };
      await this.#store.update({ memory, embedding, abortSignal });
      if (input.sessionId)
        await this.#store.linkSession({
          userId,
          memoryId: memory.id,
          sessionId: input.sessionId,
          abortSignal,
        });
      return { action: 'updated', deduplicated: true, memory, previousContent: previous.content };
    }
    const createdAt = input.createdAt ?? now;
    const memory: Memory = {
      id: input.id ?? this.#generateId(),
      userId,
      scope: input.scope,
      content: input.content,
      category: input.category,
      source: input.source,
      createdAt,
      updatedAt: input.updatedAt ?? createdAt,
      hash,
      metadata: input.metadata,
    };
    if (input.sessionId) memory.sessionId = input.sessionId;
    try {
      await this.#store.insert({ memory, embedding, abortSignal });
    } catch (error) {
      // A given id that another person's memory already has: refused, that memory untouched.
      if (
        input.id &&
        (error instanceof MemoryIdTakenError ||
          (error instanceof Error && /UNIQUE constraint failed: memories\.id/u.test(error.message)))
      )
        throw new MemoryInputError({
          field: 'id',
          message: 'Invalid id: another memory already has it; import without the id.',
          cause: error,
        });
      throw error;
    }
    return { action: 'inserted', deduplicated: false, memory };
  }

  async search(options: SearchMemoryOptions): Promise<MemorySearchResult[]> {
    await this.#usesRecorded();
    const input = parseInput(searchMemoryOptionsSchema, options);
    const query = conversationQuery(input.query, input.recentTurns);
    const embedding = await this.#embed(query.embeddingText, input.abortSignal);
    const ranked = await this.#ranked({ ...input, contextText: query.contextText, embedding });
    return ranked.slice(0, input.limit).map(({ memory: _memory, ...result }) => result);
  }

  /**
   * When the memories of a context block were last used is written one event-loop turn after the
   * block is handed back (the model request is on the wire by then; no reply depends on it). Every
   * other call of this service first waits for such writes, so it reads what an awaited write
   * would have left: the same answers in process as over HTTP, where the write lands before the
   * next request arrives.
   */
  #recordUsedLater(ids: string[], at: number): void {
    // No memory went into the block (a common turn): nothing to write, so no write to wait for;
    // the stores do nothing for an empty list either.
    if (ids.length === 0) return;
    const write = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.#store.markUsed({ ids, at }))
      .catch((error: unknown) => {
        this.#logger.warn({ err: error }, 'memory: could not record lastUsedAt');
      });
    this.#usesBeingRecorded.add(write);
    void write.finally(() => this.#usesBeingRecorded.delete(write));
  }

  /** Settles once the lastUsedAt writes started so far have (at once when there are none). */
  async #usesRecorded(): Promise<void> {
    if (this.#usesBeingRecorded.size > 0) await Promise.all(this.#usesBeingRecorded);
  }

  async context(options: MemoryContextOptions): Promise<MemoryContext> {
    await this.#usesRecorded();
    const counter = await this.#tokenCounter;
    this.#tokenCounter = counter;
    return buildMemoryContext(
      {
        store: this.#store,
        counter,
        now: this.#now,
        scoring: this.#scoring,
        scopeTimeoutMs: this.#scopeTimeoutMs,
        logger: this.#logger,
        embed: (text, abortSignal) => this.#embed(text, abortSignal),
        embedsQueries: this.#embedder !== undefined,
        recordUsedLater: (ids, at) => this.#recordUsedLater(ids, at),
        ranked: (request) => this.#ranked(request),
      },
      parseContextOptions(options),
    );
  }

  async list(options: ListMemoriesOptions): Promise<Memory[]> {
    await this.#usesRecorded();
    const input = parseInput(listMemoriesOptionsSchema, options);
    return this.#store.list({ ...input, scopes: input.scope ? [input.scope] : undefined });
  }

  async standingFacts(options: StandingFactsOptions): Promise<Memory[]> {
    await this.#usesRecorded();
    const input = parseInput(standingFactsOptionsSchema, options);
    return this.#store.standing({ ...input, order: compareStanding(this.#now(), this.#scoring) });
  }

  async get(options: MemoryRefOptions): Promise<Memory | undefined> {
    await this.#usesRecorded();
    return this.#store.get(parseInput(memoryRefOptionsSchema, options));
  }

  async delete(options: MemoryRefOptions): Promise<{ deleted: boolean }> {
    await this.#usesRecorded();
    const input = parseInput(memoryRefOptionsSchema, options);
    // In the lane, so an add that read the memory before the deletion cannot write it back after.
    return { deleted: await this.#inLane(input.userId, () => this.#store.delete(input)) };
  }

  async reset(options: { userId: string; abortSignal?: AbortSignal }): Promise<{ deleted: number }> {
    await this.#usesRecorded();
    const input = parseInput(resetOptionsSchema, options);
    return { deleted: await this.#inLane(input.userId, () => this.#store.reset(input)) };
  }

  async sessionMemories(options: {
    sessionId: string;
    userId?: string;
    abortSignal?: AbortSignal;
  }): Promise<Memory[]> {
    await this.#usesRecorded();
    return this.#store.sessionMemories(parseInput(sessionMemoriesOptionsSchema, options));
  }

  async stats(options: { userId?: string; abortSignal?: AbortSignal } = {}): Promise<MemoryStats> {
    await this.#usesRecorded();
    return this.#store.stats(parseInput(statsOptionsSchema, options));
  }

  async health(): Promise<MemoryHealth> {
    const counter = await this.#tokenCounter;
    const health: MemoryHealth = {
      status: 'ok',
      search: this.#embedder ? 'hybrid' : 'lexical',
      tokenizer: counter.name,
    };
    if (this.#embedder) health.embedder = this.#embedder.id;
    if (this.#searchReason) health.reason = this.#searchReason;
    return health;
  }

  async #ranked(options: {
    userId: string;
    query: string;
    contextText: string;
    limit: number;
    embedding: Float32Array | undefined;
    scopes?: ReadonlyArray<Memory['scope']> | undefined;
    sessionId?: string | undefined;
    abortSignal?: AbortSignal | undefined;
  }): Promise<Ranked[]> {
    const hits = await this.#store.search({
      userId: options.userId,
      text: options.query,
      contextText: options.contextText,
      embedding: options.embedding,
      // Fetch more than asked so recency can lift a slightly less relevant, much newer memory.
      limit: Math.min(400, Math.max(options.limit * 3, 30)),
      scopes: options.scopes,
      sessionId: options.sessionId,
      abortSignal: options.abortSignal,
    });
    if (hits.length === 0) return [];
    const now = this.#now();
    // The message's own time words first; a follow-up ("how did it go?") takes the turns'.
    const said = queryTime(options.query, now);
    const time = said.window ? said : { ...queryTime(options.contextText, now), current: said.current };
    const halfLifeMs = (this.#scoring.halfLifeDays ?? 30) * DAY_MS;
    const ranked: Ranked[] = hits.map(({ memory, relevance }) => ({
      id: memory.id,
      content: memory.content,
      score:
        memoryScore(relevance, recencyAge(memory, now, halfLifeMs), this.#scoring, memory) +
        timeBonus(time, memory, 0.5 ** (Math.max(0, now - memory.updatedAt) / halfLifeMs)),
      relevance,
      category: memory.category,
      source: memory.source,
      scope: memory.scope,
      createdAt: memory.createdAt,
      updatedAt: memory.updatedAt,
      metadata: memory.metadata,
      memory,
    }));
    return ranked.sort(compareRanked);
  }

  async #embed(text: string, abortSignal: AbortSignal | undefined): Promise<Float32Array | undefined> {
    if (!this.#embedder || text.trim() === '') return undefined;
    const [vector] = await this.#embedder.embed({ texts: [text], abortSignal });
    return vector;
  }
}

/**
 * The age recency is scored on: since the memory was last told, or, when that is older, since it
 * last went into a reply, counted at half the freshness (one more half-life), so a memory in use
 * stays near the top without a single use making it look new.
 */
function recencyAge(memory: Memory, now: number, halfLifeMs: number): number {
  const sinceTold = Math.max(0, now - memory.updatedAt);
  if (memory.lastUsedAt === undefined) return sinceTold;
  return Math.min(sinceTold, Math.max(0, now - memory.lastUsedAt) + halfLifeMs);
}
