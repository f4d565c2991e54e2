import type { DatabaseSync, StatementSync } from 'node:sqlite';
import {
  committedVersionReader,
  GroupCommit,
  inSavepoint,
  inTransaction,
  LazyReadTransaction,
} from '@nexus/sqlite-kit';
import { forgetRememberedStems, type PersonLexicalIndex } from '../lexical/person-lexical-index.ts';
import type { Memory, MemoryStats } from '../model/memory.ts';
import { MemoryStoreError } from '../model/memory-errors.ts';
import type {
  MemoryStore,
  StoreListOptions,
  StoreSearchHit,
  StoreSearchOptions,
  StoreStandingOptions,
  StoreWriteOptions,
  VectorSpace,
} from '../model/memory-store.ts';
import { LexicalMisses } from './lexical-misses.ts';
import { filterSql, readMemoryStats, readSessionMemories } from './memory-rows.ts';
import { openMemoryDatabase } from './open-memory-database.ts';
import { nearestInSqliteStore, searchSqliteStore } from './search-sqlite-store.ts';
import {
  type LexicalCacheOptions,
  type LexicalCacheStats,
  SqliteLexicalCache,
} from './sqlite-lexical-cache.ts';
import { SqliteMemoryRows } from './sqlite-memory-rows.ts';
import { MEMORY_COLUMNS, type MemoryRow, memoryFromRow } from './sqlite-schema.ts';
import { SqliteVectorCache, type VectorCacheOptions, type VectorCacheStats } from './sqlite-vector-cache.ts';
import { StandingFactsCache } from './standing-facts-cache.ts';
import { UnwrittenUses } from './unwritten-uses.ts';

export interface SqliteMemoryStoreOptions {
  /** File path, or `:memory:` for a throw-away store. */
  path: string;
  /** The embedder whose vectors are stored; omit for a lexical-only store. */
  vectors?: VectorSpace | undefined;
  /**
   * The in-process quantised pre-filter for large people (see `SqliteVectorCache`); `false`
   * makes every dense search an exact sqlite-vec scan. Results are the same either way.
   */
  vectorCache?: VectorCacheOptions | false;
  /** The in-process BM25 index of searched people (see `SqliteLexicalCache`). */
  lexicalCache?: LexicalCacheOptions;
  /**
   * How long recorded uses (`markUsed`) may wait before they are written, all together (see
   * `UnwrittenUses`); this store's answers include them at once. Default 10 s; 0 writes each
   * `markUsed` before it resolves.
   */
  usesWriteIntervalMs?: number;
}

/** Long enough that a busy person's turns share one write; short beside a 30-day half-life. */
const USES_WRITE_INTERVAL_MS = 10_000;
/**
 * Uses written per transaction when the interval is up, one transaction per pass of the event
 * loop: ~10 µs a memory in a 100k store (a random page each), so a pass that writes them holds
 * the loop about as long as one turn's write used to (~0.4 ms for 20 memories at 100k).
 */
const USES_PER_WRITE = 32;

/**
 * The embedded default store: one SQLite file through `node:sqlite` (WAL), FTS5 for BM25 and
 * sqlite-vec for cosine KNN with the person as partition key. No server to run.
 */
export function createSqliteMemoryStore(options: SqliteMemoryStoreOptions): SqliteMemoryStore {
  return new EmbeddedMemoryStore(options);
}

/** The embedded store, with a look into its in-process vector cache (stats, warming). */
export interface SqliteMemoryStore extends MemoryStore {
  /**
   * Builds the person's quantised index if they are large enough and it fits the budget
   * (evicting the least recently searched); resolves true once it is ready. Searches never
   * wait for it: until then they take the exact scan, with the same results.
   */
  warmVectorIndex(options: { userId: string }): Promise<boolean>;
  /** What the vector cache holds; undefined when it is off (no vectors, or `vectorCache: false`). */
  vectorCacheStats(): VectorCacheStats | undefined;
  /** Whose lexical index is held in process, and its size. */
  lexicalCacheStats(): LexicalCacheStats;
  /**
   * Builds the person's lexical index if it is not ready (in the background for a large person,
   * like their first search would); resolves true once it is, false if the build was dropped.
   */
  warmLexicalIndex(options: { userId: string }): Promise<boolean>;
}

class EmbeddedMemoryStore implements SqliteMemoryStore {
  readonly vectorSpace: VectorSpace | undefined;
  readonly #database: DatabaseSync;
  readonly #statements = new Map<string, StatementSync>();
  readonly #reads: LazyReadTransaction;
  readonly #hasVectorTable: boolean;
  readonly #vectorCache: SqliteVectorCache | undefined;
  readonly #lexicalCache: SqliteLexicalCache;
  readonly #standing: StandingFactsCache;
  readonly #rows: SqliteMemoryRows;
  readonly #uses = new UnwrittenUses();
  readonly #lexicalMisses = new LexicalMisses();
  readonly #dataVersion: () => number;
  readonly #usesWriteIntervalMs: number;
  #usesTimer: NodeJS.Timeout | NodeJS.Immediate | undefined;
  readonly #inserts = new GroupCommit<{ memory: Memory; embedding: Float32Array | undefined }>((items) =>
    this.#transaction(() => items.map((item) => this.#insertSavepoint(item.memory, item.embedding))),
  );
  #closed = false;

  constructor(options: SqliteMemoryStoreOptions) {
    const opened = openMemoryDatabase(options);
    this.#database = opened.database;
    this.#reads = new LazyReadTransaction(this.#database);
    this.vectorSpace = opened.vectorSpace;
    this.#hasVectorTable = this.vectorSpace !== undefined;
    this.#usesWriteIntervalMs = options.usesWriteIntervalMs ?? USES_WRITE_INTERVAL_MS;
    const connection = {
      statements: (sql: string) => this.#statement(sql),
      // Read once per pass of the event loop for both caches: a turn's memory context (global
      // search and listing, person, session) is read in one pass, and under load one pass serves
      // many turns; each cache used to read it on its own, twice a search. The rows returned are
      // read from SQL, never from the caches.
      dataVersion: committedVersionReader(this.#database),
    };
    this.#dataVersion = connection.dataVersion;
    this.#lexicalCache = new SqliteLexicalCache(connection, options.lexicalCache);
    this.#vectorCache =
      this.vectorSpace && options.vectorCache !== false && SqliteVectorCache.available()
        ? new SqliteVectorCache(connection, this.vectorSpace.dimensions, options.vectorCache || {})
        : undefined;
    // Read now, not once per pass like the other caches: those only rank, and the rows they name
    // are read from SQL; the standing facts cache returns its rows, so a commit elsewhere earlier in
    // this pass must already count.
    this.#standing = new StandingFactsCache({ dataVersion: () => connection.dataVersion({ fresh: true }) });
    this.#rows = new SqliteMemoryRows({
      statement: (sql) => this.#statement(sql),
      dimensions: this.vectorSpace?.dimensions,
      vectorCache: this.#vectorCache,
      lexicalCache: this.#lexicalCache,
      standing: this.#standing,
    });
    if (this.#vectorCache && options.vectorCache !== false && options.vectorCache?.warmOnOpen !== false) {
      const cache = this.#vectorCache;
      // After open returns, so opening stays quick; a failure only means colder first searches.
      setImmediate(() => {
        if (!this.#closed) cache.warmRecent().catch(() => {});
      });
    }
  }

  /** Concurrent inserts share one transaction (see `GroupCommit`); each settles after its commit. */
  async insert(options: StoreWriteOptions): Promise<void> {
    this.#check(options.abortSignal);
    return this.#inserts.add({ memory: options.memory, embedding: options.embedding });
  }

  async insertMany(options: {
    items: ReadonlyArray<{ memory: Memory; embedding?: Float32Array }>;
    abortSignal?: AbortSignal;
  }): Promise<void> {
    this.#check(options.abortSignal);
    this.#inserts.flush();
    this.#transaction(() => {
      for (const item of options.items) this.#rows.insert(item.memory, item.embedding);
    });
  }

  /** One queued insert inside the group's transaction; a failure undoes and rejects it alone. */
  #insertSavepoint(memory: Memory, embedding: Float32Array | undefined): unknown {
    const mark = this.#vectorCache?.mark() ?? 0;
    const lexicalMark = this.#lexicalCache.mark();
    return inSavepoint(
      this.#database,
      () => this.#rows.insert(memory, embedding),
      () => {
        this.#vectorCache?.rollbackTo(mark);
        this.#lexicalCache.rollbackTo(lexicalMark);
      },
    );
  }

  async update(options: StoreWriteOptions): Promise<void> {
    this.#check(options.abortSignal);
    this.#inserts.flush();
    this.#transaction(() => this.#rows.update(options.memory, options.embedding));
  }

  async get(options: { userId: string; id: string; abortSignal?: AbortSignal }): Promise<Memory | undefined> {
    this.#check(options.abortSignal);
    this.#settle(options.userId);
    const row = this.#statement(`SELECT ${MEMORY_COLUMNS} FROM memories WHERE id = ? AND user_id = ?`).get(
      options.id,
      options.userId,
    ) as MemoryRow | undefined;
    return row ? this.#uses.apply(memoryFromRow(row)) : undefined;
  }

  async findByHash(options: { userId: string; hash: string; abortSignal?: AbortSignal }) {
    this.#check(options.abortSignal);
    this.#settle(options.userId);
    const row = this.#statement(
      `SELECT ${MEMORY_COLUMNS} FROM memories WHERE user_id = ? AND hash = ? LIMIT 1`,
    ).get(options.userId, options.hash) as MemoryRow | undefined;
    return row ? this.#uses.apply(memoryFromRow(row)) : undefined;
  }

  async nearest(options: {
    userId: string;
    embedding: Float32Array;
    limit: number;
    abortSignal?: AbortSignal;
  }) {
    this.#check(options.abortSignal);
    this.#settle(options.userId);
    if (!this.#hasVectorTable) return [];
    const neighbours = nearestInSqliteStore((sql) => this.#statement(sql), options);
    this.#uses.applyAll(neighbours);
    return neighbours;
  }

  async search(options: StoreSearchOptions): Promise<StoreSearchHit[]> {
    this.#check(options.abortSignal);
    this.#settle(options.userId);
    const hits = this.#read(() =>
      searchSqliteStore(
        {
          statement: (sql) => this.#statement(sql),
          lexicalCache: this.#lexicalCache,
          vectorCache: this.#vectorCache,
          hasVectorTable: this.#hasVectorTable,
          lexicalMisses: this.#lexicalMisses,
          dataVersion: this.#dataVersion,
        },
        options,
      ),
    );
    this.#uses.applyAll(hits);
    return hits;
  }

  async warmVectorIndex(options: { userId: string }): Promise<boolean> {
    this.#check(undefined);
    this.#settle(options.userId);
    return this.#vectorCache ? this.#vectorCache.warm(options.userId, { evict: true }) : false;
  }

  vectorCacheStats(): VectorCacheStats | undefined {
    return this.#vectorCache?.stats();
  }

  lexicalCacheStats(): LexicalCacheStats {
    return this.#lexicalCache.stats();
  }

  async warmLexicalIndex(options: { userId: string }): Promise<boolean> {
    this.#check(undefined);
    this.#settle(options.userId);
    return this.#lexicalCache.warm(options.userId);
  }

  async list(options: StoreListOptions): Promise<Memory[]> {
    this.#check(options.abortSignal);
    this.#settle(options.userId);
    if (this.#knownEmpty(options.userId)) return [];
    const filters = filterSql(options.scopes, options.sessionId);
    const rows = this.#statement(
      `SELECT ${MEMORY_COLUMNS} FROM memories WHERE user_id = ?${filters.sql('scope', 'rowid')}
       ORDER BY updated_at DESC, id DESC LIMIT ? OFFSET ?`,
    ).all(options.userId, ...filters.values, options.limit, options.offset) as unknown as MemoryRow[];
    return rows.map((row) => this.#uses.apply(memoryFromRow(row)));
  }

  async standing(options: StoreStandingOptions): Promise<Memory[]> {
    this.#check(options.abortSignal);
    this.#settle(options.userId);
    if (this.#knownEmpty(options.userId)) return [];
    const memories = this.#read(() => this.#standing.read((sql) => this.#statement(sql), options));
    this.#uses.applyAll(memories);
    return memories;
  }

  async delete(options: { userId: string; id: string; abortSignal?: AbortSignal }): Promise<boolean> {
    this.#check(options.abortSignal);
    this.#inserts.flush();
    const deleted = this.#transaction(() => this.#rows.delete(options.userId, options.id));
    if (deleted) this.#uses.forget(options.id);
    return deleted;
  }

  async reset(options: { userId: string; abortSignal?: AbortSignal }): Promise<number> {
    this.#check(options.abortSignal);
    this.#inserts.flush();
    // The uses recorded so far go first, so none is left to land on a later memory given one of
    // these ids (an import).
    this.#writeUsesNow(Number.POSITIVE_INFINITY);
    const deleted = this.#transaction(() => this.#rows.reset(options.userId));
    this.#lexicalMisses.clear();
    if (deleted > 0) {
      this.#eraseFreedText();
      forgetRememberedStems();
    }
    return deleted;
  }

  /**
   * Forgetting must leave no copy on disk: FTS5 keeps deleted words in its segments until they
   * merge, so `optimize` rewrites the index without them; secure_delete zeroes the freed pages;
   * the checkpoint moves everything into the main file and cuts the WAL that held the old pages.
   */
  #eraseFreedText(): void {
    this.#database.exec("INSERT INTO memories_fts (memories_fts) VALUES ('optimize')");
    this.#database.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  }

  async linkSession(options: {
    userId: string;
    memoryId: string;
    sessionId: string;
    abortSignal?: AbortSignal;
  }) {
    this.#check(options.abortSignal);
    this.#inserts.flush();
    this.#transaction(() => this.#rows.linkSession(options.userId, options.memoryId, options.sessionId));
  }

  async sessionMemories(options: { sessionId: string; userId?: string; abortSignal?: AbortSignal }) {
    this.#check(options.abortSignal);
    this.#inserts.flush();
    const memories = readSessionMemories((sql) => this.#statement(sql), options);
    this.#uses.applyAll(memories);
    return memories;
  }

  /**
   * Every turn marks its block's memories used: recorded here and written with the others at
   * most once per `usesWriteIntervalMs` (see `UnwrittenUses`), not in a transaction per turn.
   */
  async markUsed(options: { ids: readonly string[]; at: number; abortSignal?: AbortSignal }): Promise<void> {
    this.#check(options.abortSignal);
    if (options.ids.length === 0) return;
    this.#uses.record(options.ids, options.at);
    // The kept standing facts take the new time rather than being read again.
    this.#standing.used(options.ids, options.at);
    if (this.#usesWriteIntervalMs === 0) this.#writeUsesNow(Number.POSITIVE_INFINITY);
    else if (this.#usesTimer === undefined) this.#writeUsesAfter(this.#usesWriteIntervalMs);
  }

  /** The uses recorded by then are written `delayMs` later, a few per pass (`USES_PER_WRITE`). */
  #writeUsesAfter(delayMs: number): void {
    const start = () => this.#writeUsesInPasses(this.#uses.size);
    // A process with nothing else to do may exit meanwhile; `close` writes what is left.
    this.#usesTimer = setTimeout(start, delayMs).unref();
  }

  #writeUsesInPasses(left: number): void {
    this.#usesTimer = undefined;
    if (this.#closed) return;
    try {
      left -= this.#writeUsesNow(Math.min(left, USES_PER_WRITE));
    } catch {
      // Kept and tried again after another interval: a busy file or a full disk delays a ranking
      // hint, and this store's answers include it meanwhile.
      this.#writeUsesAfter(this.#usesWriteIntervalMs);
      return;
    }
    // Only what was recorded when the interval was up: later uses wait for the next interval.
    if (left > 0 && this.#uses.size > 0)
      this.#usesTimer = setImmediate(() => this.#writeUsesInPasses(left)).unref();
    else if (this.#uses.size > 0) this.#writeUsesAfter(this.#usesWriteIntervalMs);
  }

  /**
   * Writes up to `limit` recorded uses in a transaction of their own, never moving a stored time
   * back; returns how many. Nothing recorded, no transaction. Uses whose write fails are kept.
   */
  #writeUsesNow(limit: number): number {
    const uses = this.#uses.take(limit);
    if (uses.length === 0) return 0;
    try {
      this.#transaction(() => {
        const write = this.#statement(
          'UPDATE memories SET last_used_at = max(coalesce(last_used_at, 0), ?) WHERE id = ?',
        );
        for (const [id, at] of uses) write.run(at, id);
      });
    } catch (error) {
      this.#uses.restore(uses);
      throw error;
    }
    return uses.length;
  }

  async stats(options: { userId?: string; abortSignal?: AbortSignal } = {}): Promise<MemoryStats> {
    this.#check(options.abortSignal);
    this.#inserts.flush();
    return readMemoryStats((sql) => this.#statement(sql), options.userId);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#inserts.flush();
    clearTimeout(this.#usesTimer as NodeJS.Timeout | undefined);
    clearImmediate(this.#usesTimer as NodeJS.Immediate | undefined);
    try {
      this.#writeUsesNow(Number.POSITIVE_INFINITY);
    } catch {
      // Closing anyway: the file keeps the uses written before, at most one interval behind.
    }
    this.#uses.clear();
    this.#lexicalMisses.clear();
    this.#closed = true;
    this.#vectorCache?.close();
    this.#lexicalCache.clear();
    this.#standing.clear();
    this.#statements.clear();
    this.#database.close();
  }

  /**
   * True when the person's lexical index (`index`, or the one the cache holds) is ready, up to
   * date and empty: no memory of theirs to read, so nothing is asked of SQL. A store with no
   * global memories (most) answers the global scope of every turn this way, and a new person's
   * first turns too. Call after `#settle`, so the person's queued inserts are counted.
   */
  #knownEmpty(userId: string, index?: PersonLexicalIndex): boolean {
    return (index ? index.size : this.#lexicalCache.knownSize(userId)) === 0;
  }

  /** A read of one person first commits that person's queued inserts, so it sees them. */
  #settle(userId: string): void {
    if (this.#inserts.pending((item) => item.memory.userId === userId)) this.#inserts.flush();
  }

  /**
   * A read of several statements in one read transaction, begun by its first statement
   * (`LazyReadTransaction`): a search runs up to six (a standing facts read from SQL, one per
   * kind), and outside a transaction each took and dropped the file's locks itself.
   */
  #read<T>(work: () => T): T {
    return this.#reads.run(work);
  }

  #transaction<T>(work: () => T): T {
    let result: T;
    try {
      result = inTransaction(this.#database, work);
    } catch (error) {
      this.#vectorCache?.rolledBack();
      this.#lexicalCache.rolledBack();
      throw error;
    }
    this.#vectorCache?.committed();
    this.#lexicalCache.committed();
    // The words known absent from a partition may be there now.
    this.#lexicalMisses.clear();
    return result;
  }

  #statement(sql: string): StatementSync {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.#database.prepare(sql);
      this.#statements.set(sql, statement);
    }
    // Asked for just before it runs: inside a read, the first begins its transaction.
    this.#reads.beforeStatement();
    return statement;
  }

  #check(abortSignal: AbortSignal | undefined): void {
    abortSignal?.throwIfAborted();
    if (this.#closed) throw new MemoryStoreError({ message: 'The memory store is closed.' });
  }
}
