import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { getLoadablePath } from 'sqlite-vec';
import { queryTerms } from './lexical-terms.ts';
import type { Memory, MemoryScope, MemoryStats } from './memory.ts';
import { GLOBAL_USER_ID } from './memory.ts';
import { EmbedderMismatchError, MemoryStoreError } from './memory-errors.ts';
import type {
  MemoryStore,
  StoreListOptions,
  StoreSearchHit,
  StoreSearchOptions,
  StoreWriteOptions,
  VectorSpace,
} from './memory-store.ts';
import { type ChannelRanking, fuseRankings } from './rank-fusion.ts';
import {
  type MemoryRow,
  memoryFromRow,
  SQLITE_SCHEMA,
  userKey,
  vectorBytes,
  vectorTableSql,
} from './sqlite-schema.ts';

export interface SqliteMemoryStoreOptions {
  /** File path, or `:memory:` for a throw-away store. */
  path: string;
  /** The embedder whose vectors are stored; omit for a lexical-only store. */
  vectors?: VectorSpace;
}

/** sqlite-vec answers at most this many neighbours per KNN query. */
const MAX_KNN = 4096;

/**
 * The embedded default store: one SQLite file through `node:sqlite` (WAL), FTS5 for BM25 and
 * sqlite-vec for cosine KNN with the person as partition key. No server to run.
 */
export function createSqliteMemoryStore(options: SqliteMemoryStoreOptions): MemoryStore {
  return new SqliteMemoryStore(options);
}

class SqliteMemoryStore implements MemoryStore {
  readonly vectorSpace: VectorSpace | undefined;
  readonly #database: DatabaseSync;
  readonly #statements = new Map<string, StatementSync>();
  readonly #hasVectorTable: boolean;
  #closed = false;

  constructor(options: SqliteMemoryStoreOptions) {
    try {
      this.#database = new DatabaseSync(options.path, { allowExtension: true, timeout: 5_000 });
      this.#database.loadExtension(getLoadablePath());
    } catch (error) {
      throw new MemoryStoreError({
        message: `Cannot open the memory store at ${options.path}.`,
        cause: error,
      });
    }
    // A 64 MiB page cache and memory-mapped reads keep KNN scans and BM25 reads off syscalls.
    this.#database.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;
      PRAGMA cache_size = -65536; PRAGMA mmap_size = 268435456; PRAGMA temp_store = MEMORY;`);
    this.#database.exec(SQLITE_SCHEMA);
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
    if (this.vectorSpace) {
      this.#database.exec(vectorTableSql(this.vectorSpace.dimensions));
      this.#database
        .prepare("INSERT OR IGNORE INTO meta (key, value) VALUES ('vector_space', ?)")
        .run(JSON.stringify(this.vectorSpace));
    }
    this.#hasVectorTable = this.vectorSpace !== undefined;
  }

  async insert(options: StoreWriteOptions): Promise<void> {
    this.#check(options.abortSignal);
    this.#transaction(() => this.#insert(options.memory, options.embedding));
  }

  async insertMany(options: {
    items: ReadonlyArray<{ memory: Memory; embedding?: Float32Array }>;
    abortSignal?: AbortSignal;
  }): Promise<void> {
    this.#check(options.abortSignal);
    this.#transaction(() => {
      for (const item of options.items) this.#insert(item.memory, item.embedding);
    });
  }

  #insert(memory: Memory, embedding: Float32Array | undefined): void {
    const result = this.#statement(
      `INSERT INTO memories (id, user_id, scope, session_id, content, category, source, created_at,
         updated_at, last_used_at, hash, metadata) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(...memoryValues(memory));
    this.#writeIndexes(Number(result.lastInsertRowid), memory, embedding);
    if (memory.sessionId) this.#link(memory.userId, memory.id, memory.sessionId);
  }

  async update(options: StoreWriteOptions): Promise<void> {
    this.#check(options.abortSignal);
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
      this.#deleteIndexes(row.rowid, options.embedding !== undefined);
      this.#writeIndexes(row.rowid, memory, options.embedding);
      if (memory.sessionId) this.#link(memory.userId, memory.id, memory.sessionId);
    });
  }

  async get(options: { userId: string; id: string; abortSignal?: AbortSignal }): Promise<Memory | undefined> {
    this.#check(options.abortSignal);
    const row = this.#statement('SELECT * FROM memories WHERE id = ? AND user_id = ?').get(
      options.id,
      options.userId,
    ) as MemoryRow | undefined;
    return row ? memoryFromRow(row) : undefined;
  }

  async findByHash(options: { userId: string; hash: string; abortSignal?: AbortSignal }) {
    this.#check(options.abortSignal);
    const row = this.#statement('SELECT * FROM memories WHERE user_id = ? AND hash = ? LIMIT 1').get(
      options.userId,
      options.hash,
    ) as MemoryRow | undefined;
    return row ? memoryFromRow(row) : undefined;
  }

  async nearest(options: {
    userId: string;
    embedding: Float32Array;
    limit: number;
    abortSignal?: AbortSignal;
  }) {
    this.#check(options.abortSignal);
    if (!this.#hasVectorTable) return [];
    const neighbours = this.#statement(
      'SELECT rowid, distance FROM memories_vec WHERE embedding MATCH ? AND k = ? AND user_id = ?',
    ).all(vectorBytes(options.embedding), Math.min(MAX_KNN, options.limit), options.userId) as Array<{
      rowid: number;
      distance: number;
    }>;
    const memories = this.#memoriesByRowid(neighbours.map((neighbour) => neighbour.rowid));
    return neighbours.flatMap((neighbour) => {
      const memory = memories.get(neighbour.rowid);
      return memory && memory.userId === options.userId
        ? [{ memory, similarity: 1 - neighbour.distance }]
        : [];
    });
  }

  async search(options: StoreSearchOptions): Promise<StoreSearchHit[]> {
    this.#check(options.abortSignal);
    const candidates = Math.min(MAX_KNN, Math.max(options.limit * 4, 40));
    const filters = filterSql(options.scopes, options.sessionId);
    const byRowid = new Map<number, Memory>();
    const rankings: ChannelRanking[] = [];
    const terms = queryTerms(options.text);
    if (terms.length > 0) {
      const match = `user_key : "${userKey(options.userId)}" AND content : (${terms.map((term) => `"${term}"`).join(' OR ')})`;
      const rows = this.#statement(
        `SELECT m.*, bm25(memories_fts, 0.0, 1.0) AS lexical FROM memories_fts
         JOIN memories m ON m.rowid = memories_fts.rowid
         WHERE memories_fts MATCH ? AND m.user_id = ?${filters.sql('m.scope', 'm.rowid')}
         ORDER BY lexical, m.id LIMIT ?`,
      ).all(match, options.userId, ...filters.values, candidates) as unknown as Array<
        MemoryRow & { lexical: number }
      >;
      for (const row of rows) byRowid.set(row.rowid, memoryFromRow(row));
      // FTS5's bm25() is lower-is-better; negate it so the ranking is higher-is-better.
      rankings.push(rows.map((row) => ({ id: row.id, score: -row.lexical })));
    }
    if (options.embedding && this.#hasVectorTable) {
      const neighbours = this.#statement(
        `SELECT rowid, distance FROM memories_vec
         WHERE embedding MATCH ? AND k = ? AND user_id = ?${filters.sql('scope', 'rowid')}`,
      ).all(vectorBytes(options.embedding), candidates, options.userId, ...filters.values) as Array<{
        rowid: number;
        distance: number;
      }>;
      const missing = neighbours.map((neighbour) => neighbour.rowid).filter((rowid) => !byRowid.has(rowid));
      for (const [rowid, memory] of this.#memoriesByRowid(missing)) byRowid.set(rowid, memory);
      rankings.push(
        neighbours.flatMap((neighbour) => {
          const id = byRowid.get(neighbour.rowid)?.id;
          return id === undefined ? [] : [{ id, score: 1 - neighbour.distance }];
        }),
      );
    }
    const relevance = fuseRankings(rankings);
    const hits: StoreSearchHit[] = [];
    for (const memory of byRowid.values()) {
      if (memory.userId !== options.userId) continue;
      hits.push({ memory, relevance: relevance.get(memory.id) ?? 0 });
    }
    hits.sort((left, right) => right.relevance - left.relevance);
    return hits.slice(0, options.limit);
  }

  async list(options: StoreListOptions): Promise<Memory[]> {
    this.#check(options.abortSignal);
    const filters = filterSql(options.scopes, options.sessionId);
    const rows = this.#statement(
      `SELECT * FROM memories WHERE user_id = ?${filters.sql('scope', 'rowid')}
       ORDER BY updated_at DESC, id DESC LIMIT ? OFFSET ?`,
    ).all(options.userId, ...filters.values, options.limit, options.offset) as unknown as MemoryRow[];
    return rows.map(memoryFromRow);
  }

  async delete(options: { userId: string; id: string; abortSignal?: AbortSignal }): Promise<boolean> {
    this.#check(options.abortSignal);
    return this.#transaction(() => {
      const row = this.#statement('SELECT rowid FROM memories WHERE id = ? AND user_id = ?').get(
        options.id,
        options.userId,
      ) as { rowid: number } | undefined;
      if (!row) return false;
      this.#deleteIndexes(row.rowid, true);
      this.#statement('DELETE FROM memories WHERE rowid = ?').run(row.rowid);
      return true;
    });
  }

  async reset(options: { userId: string; abortSignal?: AbortSignal }): Promise<number> {
    this.#check(options.abortSignal);
    return this.#transaction(() => {
      const rows = this.#statement('SELECT rowid FROM memories WHERE user_id = ?').all(
        options.userId,
      ) as Array<{
        rowid: number;
      }>;
      for (const row of rows) this.#deleteIndexes(row.rowid, true);
      this.#statement('DELETE FROM memories WHERE user_id = ?').run(options.userId);
      return rows.length;
    });
  }

  async linkSession(options: {
    userId: string;
    memoryId: string;
    sessionId: string;
    abortSignal?: AbortSignal;
  }) {
    this.#check(options.abortSignal);
    this.#link(options.userId, options.memoryId, options.sessionId);
  }

  async sessionMemories(options: { sessionId: string; userId?: string; abortSignal?: AbortSignal }) {
    this.#check(options.abortSignal);
    const personFilter = options.userId === undefined ? '' : ' AND l.user_id = ?';
    const values = options.userId === undefined ? [options.sessionId] : [options.sessionId, options.userId];
    const rows = this.#statement(
      `SELECT m.* FROM session_links l JOIN memories m ON m.rowid = l.memory_rowid
       WHERE l.session_id = ?${personFilter} ORDER BY m.created_at, m.id`,
    ).all(...values) as unknown as MemoryRow[];
    return rows.map(memoryFromRow);
  }

  async markUsed(options: { ids: readonly string[]; at: number; abortSignal?: AbortSignal }): Promise<void> {
    this.#check(options.abortSignal);
    if (options.ids.length === 0) return;
    this.#statement('UPDATE memories SET last_used_at = ? WHERE id IN (SELECT value FROM json_each(?))').run(
      options.at,
      JSON.stringify(options.ids),
    );
  }

  async stats(options: { userId?: string; abortSignal?: AbortSignal } = {}): Promise<MemoryStats> {
    this.#check(options.abortSignal);
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
    this.#closed = true;
    this.#statements.clear();
    this.#database.close();
  }

  #writeIndexes(rowid: number, memory: Memory, embedding: Float32Array | undefined): void {
    this.#statement('INSERT INTO memories_fts (rowid, user_key, content) VALUES (?, ?, ?)').run(
      rowid,
      userKey(memory.userId),
      memory.content,
    );
    if (embedding && this.#hasVectorTable) {
      const dimensions = this.vectorSpace?.dimensions;
      if (embedding.length !== dimensions) {
        throw new MemoryStoreError({
          message: `Embedding has ${embedding.length} dimensions; this store holds ${dimensions}.`,
        });
      }
      this.#statement('INSERT INTO memories_vec (rowid, user_id, scope, embedding) VALUES (?, ?, ?, ?)').run(
        BigInt(rowid),
        memory.userId,
        memory.scope,
        vectorBytes(embedding),
      );
    }
  }

  #deleteIndexes(rowid: number, includingVector: boolean): void {
    this.#statement('DELETE FROM memories_fts WHERE rowid = ?').run(rowid);
    if (includingVector && this.#hasVectorTable) {
      this.#statement('DELETE FROM memories_vec WHERE rowid = ?').run(BigInt(rowid));
    }
  }

  #link(userId: string, memoryId: string, sessionId: string): void {
    this.#statement(
      `INSERT OR IGNORE INTO session_links (session_id, memory_rowid, user_id)
       SELECT ?, rowid, user_id FROM memories WHERE id = ? AND user_id = ?`,
    ).run(sessionId, memoryId, userId);
  }

  #memoriesByRowid(rowids: readonly number[]): Map<number, Memory> {
    const result = new Map<number, Memory>();
    if (rowids.length === 0) return result;
    const rows = this.#statement(
      'SELECT * FROM memories WHERE rowid IN (SELECT value FROM json_each(?))',
    ).all(JSON.stringify(rowids)) as unknown as MemoryRow[];
    for (const row of rows) result.set(row.rowid, memoryFromRow(row));
    return result;
  }

  #transaction<T>(work: () => T): T {
    this.#database.exec('BEGIN IMMEDIATE');
    try {
      const result = work();
      this.#database.exec('COMMIT');
      return result;
    } catch (error) {
      this.#database.exec('ROLLBACK');
      throw error;
    }
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
