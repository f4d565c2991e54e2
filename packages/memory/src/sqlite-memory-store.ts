import type { DatabaseSync, StatementSync } from 'node:sqlite';
import {
  committedVersionReader,
  GroupCommit,
  inSavepoint,
  inTransaction,
  openSqliteDatabase,
} from '@nexus/sqlite-kit';
import { getLoadablePath } from 'sqlite-vec';
import { lexicalQueryParts, sumWeightedRankings } from './conversation-query.ts';
import type { Memory, MemoryScope, MemoryStats } from './memory.ts';
import { GLOBAL_USER_ID } from './memory.ts';
import { EmbedderMismatchError, MemoryStoreError } from './memory-errors.ts';
import type {
  MemoryStore,
  StoreListOptions,
  StoreSearchHit,
  StoreSearchOptions,
  StoreStandingOptions,
  StoreWriteOptions,
  VectorSpace,
} from './memory-store.ts';
import { forgetRememberedStems, type PersonLexicalIndex } from './person-lexical-index.ts';
import { fuseRankings } from './rank-fusion.ts';
import {
  type LexicalCacheOptions,
  type LexicalCacheStats,
  SqliteLexicalCache,
} from './sqlite-lexical-cache.ts';
import { prepareSearchIndexes } from './sqlite-migration.ts';
import {
  MEMORY_COLUMNS,
  type MemoryRow,
  memoryFromRow,
  partitionKeys,
  SQLITE_TABLES,
  similarityFromDistance,
  unitVectorBytes,
} from './sqlite-schema.ts';
import { denseRanking, lexicalRanking, MAX_KNN, type RowRanking, sessionLinks } from './sqlite-search.ts';
import { SqliteVectorCache, type VectorCacheOptions, type VectorCacheStats } from './sqlite-vector-cache.ts';
import { mergeStandingKinds, STANDING_KINDS } from './standing-kinds.ts';

export interface SqliteMemoryStoreOptions {
  /** File path, or `:memory:` for a throw-away store. */
  path: string;
  /** The embedder whose vectors are stored; omit for a lexical-only store. */
  vectors?: VectorSpace;
  /**
   * The in-process quantised pre-filter for large people (see `SqliteVectorCache`); `false`
   * makes every dense search an exact sqlite-vec scan. Results are the same either way.
   */
  vectorCache?: VectorCacheOptions | false;
  /** The in-process BM25 index of searched people (see `SqliteLexicalCache`). */
  lexicalCache?: LexicalCacheOptions;
}

const MEMORY_COLUMNS_OF_M = MEMORY_COLUMNS.split(', ')
  .map((column) => `m.${column}`)
  .join(', ');

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
  readonly #hasVectorTable: boolean;
  readonly #vectorCache: SqliteVectorCache | undefined;
  readonly #lexicalCache: SqliteLexicalCache;
  readonly #inserts = new GroupCommit<{ memory: Memory; embedding: Float32Array | undefined }>((items) =>
    this.#transaction(() => items.map((item) => this.#insertSavepoint(item.memory, item.embedding))),
  );
  #closed = false;

  constructor(options: SqliteMemoryStoreOptions) {
    try {
      // No user_version migrations: this store versions its schema in its `meta` table
      // (sqlite-migration.ts), which predates the kit; the kit's opener still refuses nothing here.
      this.#database = openSqliteDatabase({
        path: options.path,
        storeName: 'memory store',
        migrations: [],
        foreignKeys: true,
        allowExtension: true,
      });
      this.#database.loadExtension(getLoadablePath());
    } catch (error) {
      throw new MemoryStoreError({
        message: `Cannot open the memory store at ${options.path}.`,
        cause: error,
      });
    }
    // A 64 MiB page cache and memory-mapped reads keep KNN scans and BM25 reads off syscalls.
    // Checkpoints every ~40 MB of WAL instead of 4 MB: an add dirties pages all over the file
    // (the person's vector chunk, four indexes, FTS5 segments), and copying them back less often
    // lets one checkpoint write a page that many adds changed (measured: commit cost per add
    // from ~85 to ~32 µs). The WAL is cut back to 64 MiB after a checkpoint.
    this.#database.exec(`PRAGMA cache_size = -65536; PRAGMA mmap_size = 268435456; PRAGMA temp_store = MEMORY;
      PRAGMA wal_autocheckpoint = 10000; PRAGMA journal_size_limit = 67108864;`);
    this.#database.exec(SQLITE_TABLES);
    const stored = this.#database.prepare("SELECT value FROM meta WHERE key = 'vector_space'").get() as
      | { value: string }
      | undefined;
    const storedSpace = stored ? (JSON.parse(stored.value) as VectorSpace) : undefined;
    if (storedSpace && options.vectors && !sameSpace(storedSpace, options.vectors)) {
      this.#database.close();
      throw new EmbedderMismatchError({
        stored: `${storedSpace.embedderId} (${storedSpace.dimensions} dimensions)`,
        configured: `${options.vectors.embedderId} (${options.vectors.dimensions} dimensions)`,
      });
    }
    this.vectorSpace = storedSpace ?? options.vectors;
    try {
      prepareSearchIndexes(this.#database, this.vectorSpace?.dimensions);
    } catch (error) {
      this.#database.close();
      throw new MemoryStoreError({
        message: `Cannot prepare the memory store at ${options.path}.`,
        cause: error,
      });
    }
    if (this.vectorSpace) {
      this.#database
        .prepare("INSERT OR IGNORE INTO meta (key, value) VALUES ('vector_space', ?)")
        .run(JSON.stringify(this.vectorSpace));
    }
    this.#hasVectorTable = this.vectorSpace !== undefined;
    const connection = {
      statements: (sql: string) => this.#statement(sql),
      // Read once per pass of the event loop for both caches: a turn's memory context (global
      // search and listing, person, session) is read in one pass, and under load one pass serves
      // many turns; each cache used to read it on its own, twice a search. The rows returned are
      // read from SQL, never from the caches.
      dataVersion: committedVersionReader(this.#database),
    };
    this.#lexicalCache = new SqliteLexicalCache(connection, options.lexicalCache);
    this.#vectorCache =
      this.vectorSpace && options.vectorCache !== false && SqliteVectorCache.available()
        ? new SqliteVectorCache(connection, this.vectorSpace.dimensions, options.vectorCache || {})
        : undefined;
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
      for (const item of options.items) this.#insert(item.memory, item.embedding);
    });
  }

  /** One queued insert inside the group's transaction; a failure undoes and rejects it alone. */
  #insertSavepoint(memory: Memory, embedding: Float32Array | undefined): unknown {
    const mark = this.#vectorCache?.mark() ?? 0;
    const lexicalMark = this.#lexicalCache.mark();
    return inSavepoint(
      this.#database,
      () => this.#insert(memory, embedding),
      () => {
        this.#vectorCache?.rollbackTo(mark);
        this.#lexicalCache.rollbackTo(lexicalMark);
      },
    );
  }

  #insert(memory: Memory, embedding: Float32Array | undefined): void {
    const result = this.#statement(
      `INSERT INTO memories (id, user_id, scope, session_id, content, category, source, created_at,
         updated_at, last_used_at, hash, metadata) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(...memoryValues(memory));
    const rowid = Number(result.lastInsertRowid);
    if (memory.sessionId) this.#link(memory.userId, memory.id, memory.sessionId);
    this.#writeText(rowid, memory, memory.sessionId ? [memory.sessionId] : []);
    this.#lexicalCache.written(memory.userId, rowid, memory.scope, memory.content);
    if (embedding) this.#writeVector(rowid, memory, embedding);
  }

  async update(options: StoreWriteOptions): Promise<void> {
    this.#check(options.abortSignal);
    this.#inserts.flush();
    const { memory } = options;
    this.#transaction(() => {
      const row = this.#statement('SELECT rowid FROM memories WHERE id = ? AND user_id = ?').get(
        memory.id,
        memory.userId,
      ) as { rowid: number } | undefined;
      if (!row) throw new MemoryStoreError({ message: `No memory ${memory.id} for this person to update.` });
      this.#statement(
        `UPDATE memories SET scope = ?, session_id = ?, content = ?, category = ?, source = ?, created_at = ?,
           updated_at = ?, last_used_at = ?, hash = ?, metadata = ? WHERE rowid = ?`,
      ).run(...memoryValues(memory).slice(2), row.rowid);
      if (memory.sessionId) this.#link(memory.userId, memory.id, memory.sessionId);
      this.#deleteText(row.rowid);
      this.#writeText(row.rowid, memory);
      this.#lexicalCache.written(memory.userId, row.rowid, memory.scope, memory.content);
      if (options.embedding) {
        this.#deleteVector(row.rowid);
        this.#writeVector(row.rowid, memory, options.embedding);
      }
    });
  }

  async get(options: { userId: string; id: string; abortSignal?: AbortSignal }): Promise<Memory | undefined> {
    this.#check(options.abortSignal);
    this.#settle(options.userId);
    const row = this.#statement(`SELECT ${MEMORY_COLUMNS} FROM memories WHERE id = ? AND user_id = ?`).get(
      options.id,
      options.userId,
    ) as MemoryRow | undefined;
    return row ? memoryFromRow(row) : undefined;
  }

  async findByHash(options: { userId: string; hash: string; abortSignal?: AbortSignal }) {
    this.#check(options.abortSignal);
    this.#settle(options.userId);
    const row = this.#statement(
      `SELECT ${MEMORY_COLUMNS} FROM memories WHERE user_id = ? AND hash = ? LIMIT 1`,
    ).get(options.userId, options.hash) as MemoryRow | undefined;
    return row ? memoryFromRow(row) : undefined;
  }

  async nearest(options: {
    userId: string;
    embedding: Float32Array;
    limit: number;
    abortSignal?: AbortSignal;
  }) {
    this.#check(options.abortSignal);
    this.#settle(options.userId);
    const query = this.#hasVectorTable ? unitVectorBytes(options.embedding) : undefined;
    if (!query) return [];
    const neighbours = this.#statement(
      'SELECT rowid, distance FROM memories_vec WHERE embedding MATCH ? AND k = ? AND user_id = ?',
    ).all(query, Math.min(MAX_KNN, options.limit), options.userId) as Array<{
      rowid: number;
      distance: number;
    }>;
    const memories = this.#memoriesByRowid(
      neighbours.map((neighbour) => neighbour.rowid),
      { userId: options.userId },
    );
    return neighbours.flatMap((neighbour) => {
      const memory = memories.get(neighbour.rowid);
      return memory ? [{ memory, similarity: similarityFromDistance(neighbour.distance) }] : [];
    });
  }

  async search(options: StoreSearchOptions): Promise<StoreSearchHit[]> {
    this.#check(options.abortSignal);
    this.#settle(options.userId);
    if (options.scopes?.length === 0) return [];
    const candidates = Math.min(MAX_KNN, Math.max(options.limit * 4, 40));
    const partition = { userId: options.userId, scopes: options.scopes, sessionId: options.sessionId };
    const statements = (sql: string) => this.#statement(sql);
    const rankings: RowRanking[] = [];
    // A person's or scope's memories are ranked by the in-process index in one pass over the
    // parts' postings (message words, its stop words, the turns' words, each at its weight).
    // A session's few linked memories, and a large person's while their index is built, are
    // found by FTS5, one BM25 query per part, summed by weight.
    const index = options.sessionId === undefined ? this.#lexicalCache.index(options.userId) : undefined;
    if (this.#knownEmpty(options.userId, index)) return [];
    // A session's links are read first (one indexed read, which the dense channel's candidates
    // are anyway): a conversation nothing has been linked to yet costs no FTS5 query.
    const linked = options.sessionId === undefined ? undefined : sessionLinks(statements, partition);
    if (linked?.length === 0) return [];
    const parts = lexicalQueryParts(options.text, options.contextText);
    if (parts.length > 0) {
      const lexical = index
        ? index.rank(parts, candidates, options.scopes)
        : sumWeightedRankings(
            parts.map((part) => ({
              ranking: lexicalRanking(statements, partition, part.terms, candidates),
              weight: part.weight,
            })),
          );
      rankings.push(lexical.slice(0, candidates));
    }
    const query = options.embedding && this.#hasVectorTable ? unitVectorBytes(options.embedding) : undefined;
    if (query) {
      // The lexical index knows how many memories the person has: no count for the vector cache.
      const vectors =
        options.sessionId === undefined ? this.#vectorCache?.index(options.userId, index?.size) : undefined;
      rankings.push(denseRanking(statements, partition, query, candidates, vectors, linked));
    }
    const channels = rankings.map((ranking) =>
      ranking.map((entry) => ({ id: String(entry.rowid), score: entry.score })),
    );
    const relevance = fuseRankings(channels);
    // Best fused relevance first; equal relevance keeps channel order (lexical, then dense).
    const order = [...new Set(rankings.flatMap((ranking) => ranking.map((entry) => entry.rowid)))];
    const relevanceOf = (rowid: number) => relevance.get(String(rowid)) ?? 0;
    order.sort((left, right) => relevanceOf(right) - relevanceOf(left));
    const kept = order.slice(0, options.limit);
    // Only the kept rows are read, and the SQL filter on person, scope and session decides.
    const memories = this.#memoriesByRowid(kept, partition);
    return kept.flatMap((rowid) => {
      const memory = memories.get(rowid);
      return memory ? [{ memory, relevance: relevanceOf(rowid) }] : [];
    });
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
    return rows.map(memoryFromRow);
  }

  async standing(options: StoreStandingOptions): Promise<Memory[]> {
    this.#check(options.abortSignal);
    this.#settle(options.userId);
    if (this.#knownEmpty(options.userId)) return [];
    // One statement per kind (a statement steps one cursor at a time), each walking the
    // `memories_standing` index newest first; rows are read only as the merge asks for them.
    const cursors = STANDING_KINDS.map(({ category, source }) =>
      this.#statement(
        `SELECT ${MEMORY_COLUMNS} FROM memories WHERE user_id = ? AND scope = 'user'
         AND category = '${category}' AND source = '${source}' ORDER BY updated_at DESC, id`,
      ).iterate(options.userId),
    );
    try {
      const streams = cursors.map((cursor) => lazyMemories(cursor as IterableIterator<MemoryRow>));
      return mergeStandingKinds(streams, options.order, options.limit);
    } finally {
      // Ends each cursor, so no statement holds a read snapshot (the WAL could not be checkpointed).
      for (const cursor of cursors) cursor.return?.();
    }
  }

  async delete(options: { userId: string; id: string; abortSignal?: AbortSignal }): Promise<boolean> {
    this.#check(options.abortSignal);
    this.#inserts.flush();
    return this.#transaction(() => {
      const row = this.#statement('SELECT rowid FROM memories WHERE id = ? AND user_id = ?').get(
        options.id,
        options.userId,
      ) as { rowid: number } | undefined;
      if (!row) return false;
      this.#deleteText(row.rowid);
      this.#lexicalCache.removed(options.userId, row.rowid);
      this.#deleteVector(row.rowid);
      this.#statement('DELETE FROM memories WHERE rowid = ?').run(row.rowid);
      return true;
    });
  }

  async reset(options: { userId: string; abortSignal?: AbortSignal }): Promise<number> {
    this.#check(options.abortSignal);
    this.#inserts.flush();
    const deleted = this.#transaction(() => {
      const rows = this.#statement('SELECT rowid FROM memories WHERE user_id = ?').all(
        options.userId,
      ) as Array<{
        rowid: number;
      }>;
      for (const row of rows) {
        this.#deleteText(row.rowid);
        this.#lexicalCache.removed(options.userId, row.rowid);
        this.#deleteVector(row.rowid);
      }
      this.#statement('DELETE FROM memories WHERE user_id = ?').run(options.userId);
      // Forgetting leaves not even the person's id behind; a later memory gets a new change number.
      this.#statement('DELETE FROM person_versions WHERE user_id = ?').run(options.userId);
      return rows.length;
    });
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
    this.#transaction(() => {
      const rowid = this.#link(options.userId, options.memoryId, options.sessionId);
      if (rowid === undefined) return;
      // The memory's FTS5 row now also carries this session's token.
      const row = this.#statement('SELECT user_id, scope, content FROM memories WHERE rowid = ?').get(
        rowid,
      ) as {
        user_id: string;
        scope: MemoryScope;
        content: string;
      };
      this.#deleteText(rowid);
      this.#writeText(rowid, { userId: row.user_id, scope: row.scope, content: row.content });
    });
  }

  async sessionMemories(options: { sessionId: string; userId?: string; abortSignal?: AbortSignal }) {
    this.#check(options.abortSignal);
    this.#inserts.flush();
    const personFilter = options.userId === undefined ? '' : ' AND l.user_id = ?';
    const values = options.userId === undefined ? [options.sessionId] : [options.sessionId, options.userId];
    const rows = this.#statement(
      `SELECT ${MEMORY_COLUMNS_OF_M} FROM session_links l JOIN memories m ON m.rowid = l.memory_rowid
       WHERE l.session_id = ?${personFilter} ORDER BY m.created_at, m.id`,
    ).all(...values) as unknown as MemoryRow[];
    return rows.map(memoryFromRow);
  }

  async markUsed(options: { ids: readonly string[]; at: number; abortSignal?: AbortSignal }): Promise<void> {
    this.#check(options.abortSignal);
    this.#inserts.flush();
    if (options.ids.length === 0) return;
    this.#statement('UPDATE memories SET last_used_at = ? WHERE id IN (SELECT value FROM json_each(?))').run(
      options.at,
      JSON.stringify(options.ids),
    );
  }

  async stats(options: { userId?: string; abortSignal?: AbortSignal } = {}): Promise<MemoryStats> {
    this.#check(options.abortSignal);
    this.#inserts.flush();
    const totals = this.#statement(
      `SELECT count(*) AS memories, count(DISTINCT nullif(user_id, ?)) AS users,
         sum(user_id = ?) AS global FROM memories`,
    ).get(GLOBAL_USER_ID, GLOBAL_USER_ID) as { memories: number; users: number; global: number | null };
    const sessions = this.#statement(
      'SELECT count(DISTINCT session_id) AS sessions FROM session_links',
    ).get() as {
      sessions: number;
    };
    const personFilter = options.userId === undefined ? 'user_id != ?' : 'user_id = ?';
    const person = options.userId ?? GLOBAL_USER_ID;
    const users = this.#statement(
      `SELECT user_id AS userId, count(*) AS memories,
         (SELECT count(DISTINCT session_id) FROM session_links l WHERE l.user_id = m.user_id) AS sessions
       FROM memories m WHERE ${personFilter} GROUP BY user_id ORDER BY user_id`,
    ).all(person) as Array<{ userId: string; memories: number; sessions: number }>;
    return {
      totalMemories: totals.memories,
      totalUsers: totals.users,
      totalSessions: sessions.sessions,
      globalMemories: totals.global ?? 0,
      users: users.map((row) => ({ userId: row.userId, memories: row.memories, sessions: row.sessions })),
    };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#inserts.flush();
    this.#closed = true;
    this.#vectorCache?.close();
    this.#lexicalCache.clear();
    this.#statements.clear();
    this.#database.close();
  }

  /** Writes the FTS5 row; `sessions` defaults to the memory's stored session links. */
  #writeText(
    rowid: number,
    memory: Pick<Memory, 'userId' | 'scope' | 'content'>,
    sessions: readonly string[] = this.#statement(
      'SELECT session_id FROM session_links WHERE memory_rowid = ?',
    )
      .all(rowid)
      .map((row) => (row as { session_id: string }).session_id),
  ): void {
    this.#statement('INSERT INTO memories_fts (rowid, partition_keys, content) VALUES (?, ?, ?)').run(
      rowid,
      partitionKeys(memory.userId, memory.scope, sessions),
      memory.content,
    );
  }

  #writeVector(rowid: number, memory: Memory, embedding: Float32Array): void {
    if (!this.#hasVectorTable) return;
    const dimensions = this.vectorSpace?.dimensions;
    if (embedding.length !== dimensions) {
      throw new MemoryStoreError({
        message: `Embedding has ${embedding.length} dimensions; this store holds ${dimensions}.`,
      });
    }
    const unit = unitVectorBytes(embedding);
    if (!unit) return;
    this.#statement('INSERT INTO memories_vec (rowid, user_id, scope, embedding) VALUES (?, ?, ?, ?)').run(
      BigInt(rowid),
      memory.userId,
      memory.scope,
      unit,
    );
    this.#statement('INSERT OR REPLACE INTO memory_vectors (rowid, embedding) VALUES (?, ?)').run(
      rowid,
      unit,
    );
    this.#vectorCache?.written(memory.userId, rowid, memory.scope, unit);
  }

  #deleteText(rowid: number): void {
    this.#statement('DELETE FROM memories_fts WHERE rowid = ?').run(rowid);
  }

  #deleteVector(rowid: number): void {
    if (!this.#hasVectorTable) return;
    this.#statement('DELETE FROM memories_vec WHERE rowid = ?').run(BigInt(rowid));
    this.#statement('DELETE FROM memory_vectors WHERE rowid = ?').run(rowid);
    this.#vectorCache?.removed(rowid);
  }

  /** Links the memory to the session; returns its rowid when the link is new. */
  #link(userId: string, memoryId: string, sessionId: string): number | undefined {
    const row = this.#statement(
      `INSERT OR IGNORE INTO session_links (session_id, memory_rowid, user_id)
       SELECT ?, rowid, user_id FROM memories WHERE id = ? AND user_id = ? RETURNING memory_rowid`,
    ).get(sessionId, memoryId, userId) as { memory_rowid: number } | undefined;
    if (row) this.#lexicalCache.linked(userId, row.memory_rowid, sessionId);
    return row?.memory_rowid;
  }

  /** Rows by rowid, restricted in SQL to the person (and scope / session when given). */
  #memoriesByRowid(
    rowids: readonly number[],
    filter: { userId: string; scopes?: readonly MemoryScope[]; sessionId?: string },
  ): Map<number, Memory> {
    const result = new Map<number, Memory>();
    if (rowids.length === 0) return result;
    const filters = filterSql(filter.scopes, filter.sessionId);
    // `+` keeps SQLite on the rowid lookups instead of scanning the person's index.
    const rows = this.#statement(
      `SELECT ${MEMORY_COLUMNS} FROM memories WHERE rowid IN (SELECT value FROM json_each(?))
       AND +user_id = ?${filters.sql('+scope', 'rowid')}`,
    ).all(JSON.stringify(rowids), filter.userId, ...filters.values) as unknown as MemoryRow[];
    for (const row of rows) result.set(row.rowid, memoryFromRow(row));
    return result;
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
    return result;
  }

  #statement(sql: string): StatementSync {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.#database.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  #check(abortSignal: AbortSignal | undefined): void {
    abortSignal?.throwIfAborted();
    if (this.#closed) throw new MemoryStoreError({ message: 'The memory store is closed.' });
  }
}

function* lazyMemories(rows: Iterator<MemoryRow>): Generator<Memory, void, undefined> {
  for (let row = rows.next(); !row.done; row = rows.next()) yield memoryFromRow(row.value);
}

function memoryValues(memory: Memory): Array<string | number | null> {
  return [
    memory.id,
    memory.userId,
    memory.scope,
    memory.sessionId ?? null,
    memory.content,
    memory.category,
    memory.source,
    memory.createdAt,
    memory.updatedAt,
    memory.lastUsedAt ?? null,
    memory.hash,
    JSON.stringify(memory.metadata),
  ];
}

function filterSql(scopes: readonly MemoryScope[] | undefined, sessionId: string | undefined) {
  const values: string[] = [...(scopes ?? [])];
  if (sessionId !== undefined) values.push(sessionId);
  return {
    values,
    sql(scopeColumn: string, rowidColumn: string): string {
      let sql = '';
      if (scopes) sql += ` AND ${scopeColumn} IN (${scopes.map(() => '?').join(', ') || 'NULL'})`;
      if (sessionId !== undefined) {
        sql += ` AND ${rowidColumn} IN (SELECT memory_rowid FROM session_links WHERE session_id = ?)`;
      }
      return sql;
    },
  };
}

function sameSpace(left: VectorSpace, right: VectorSpace): boolean {
  return left.embedderId === right.embedderId && left.dimensions === right.dimensions;
}
