import type { Memory, MemoryScope } from '../model/memory.ts';
import { MemoryStoreError } from '../model/memory-errors.ts';
import { memoryValues, type Statements } from './memory-rows.ts';
import type { SqliteLexicalCache } from './sqlite-lexical-cache.ts';
import { partitionKeys, unitVectorBytes } from './sqlite-schema.ts';
import type { SqliteVectorCache } from './sqlite-vector-cache.ts';
import type { StandingFactsCache } from './standing-facts-cache.ts';

/**
 * The store's writes, row by row: a memory's table row, its FTS5 row, its vectors and its session
 * links, with the in-process lexical, vector and standing-facts caches told of each change.
 * Callers run these inside the store's transaction; this class never commits on its own.
 */
export class SqliteMemoryRows {
  readonly #statement: Statements;
  readonly #dimensions: number | undefined;
  readonly #vectorCache: SqliteVectorCache | undefined;
  readonly #lexicalCache: SqliteLexicalCache;
  readonly #standing: StandingFactsCache;

  constructor(options: {
    statement: Statements;
    /** The stored vectors' size; undefined for a lexical-only store (no vector table). */
    dimensions: number | undefined;
    vectorCache: SqliteVectorCache | undefined;
    lexicalCache: SqliteLexicalCache;
    /** Told of every write to a person's rows: their kept standing facts are dropped. */
    standing: StandingFactsCache;
  }) {
    this.#statement = options.statement;
    this.#dimensions = options.dimensions;
    this.#vectorCache = options.vectorCache;
    this.#lexicalCache = options.lexicalCache;
    this.#standing = options.standing;
  }

  insert(memory: Memory, embedding: Float32Array | undefined): void {
    this.#standing.changed(memory.userId);
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

  /** Rewrites the person's memory `memory.id` in place; its vectors too when `embedding` is given. */
  update(memory: Memory, embedding: Float32Array | undefined): void {
    this.#standing.changed(memory.userId);
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
    if (embedding) {
      this.#deleteVector(row.rowid);
      this.#writeVector(row.rowid, memory, embedding);
    }
  }

  /** Deletes the memory, its index rows and session links; false when the person has no such memory. */
  delete(userId: string, id: string): boolean {
    this.#standing.changed(userId);
    const row = this.#statement('SELECT rowid FROM memories WHERE id = ? AND user_id = ?').get(id, userId) as
      | { rowid: number }
      | undefined;
    if (!row) return false;
    this.#deleteText(row.rowid);
    this.#lexicalCache.removed(userId, row.rowid);
    this.#deleteVector(row.rowid);
    this.#statement('DELETE FROM memories WHERE rowid = ?').run(row.rowid);
    return true;
  }

  /** Deletes every memory of the person, and their change counter; returns how many. */
  reset(userId: string): number {
    this.#standing.changed(userId);
    const rows = this.#statement('SELECT rowid FROM memories WHERE user_id = ?').all(userId) as Array<{
      rowid: number;
    }>;
    for (const row of rows) {
      this.#deleteText(row.rowid);
      this.#lexicalCache.removed(userId, row.rowid);
      this.#deleteVector(row.rowid);
    }
    this.#statement('DELETE FROM memories WHERE user_id = ?').run(userId);
    // Forgetting leaves not even the person's id behind; a later memory gets a new change number.
    this.#statement('DELETE FROM person_versions WHERE user_id = ?').run(userId);
    return rows.length;
  }

  /** Links the memory to the session and gives its FTS5 row the session's token. */
  linkSession(userId: string, memoryId: string, sessionId: string): void {
    const rowid = this.#link(userId, memoryId, sessionId);
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
    if (this.#dimensions === undefined) return;
    const dimensions = this.#dimensions;
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
    if (this.#dimensions === undefined) return;
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
}
