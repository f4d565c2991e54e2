import { createHash } from 'node:crypto';
import type { Memory, MemoryScope } from '../model/memory.ts';

/** Bumped whenever the index layout changes; `migrateSqliteSchema` rebuilds older files. */
export const SQLITE_SCHEMA_VERSION = 3;

/** Tables of the embedded store. `rowid` ties a memory to its FTS5 row and its sqlite-vec row. */
export const SQLITE_TABLES = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS memories (
  rowid INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  user_id TEXT NOT NULL,
  scope TEXT NOT NULL,
  session_id TEXT,
  content TEXT NOT NULL,
  category TEXT NOT NULL,
  source TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  last_used_at INTEGER,
  hash TEXT NOT NULL,
  metadata TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS memories_user_hash ON memories (user_id, hash);
CREATE INDEX IF NOT EXISTS memories_user_updated ON memories (user_id, updated_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS memories_standing ON memories (user_id, scope, category, source, updated_at DESC, id);
-- A person's rows in rowid order: the slices of a background lexical index build (SqliteLexicalCache).
CREATE INDEX IF NOT EXISTS memories_user_rowid ON memories (user_id);
-- Per person, the store-wide change number of the last change to their memories' words or
-- scopes (not last_used_at): how the in-process lexical index (SqliteLexicalCache) tells, after
-- another connection committed, whether this person's memories changed or only something else
-- did. Store-wide and never reused, so a person forgotten and told again gets a new number.
CREATE TABLE IF NOT EXISTS memory_changes (sequence INTEGER NOT NULL);
INSERT INTO memory_changes (sequence) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM memory_changes);
CREATE TABLE IF NOT EXISTS person_versions (user_id TEXT PRIMARY KEY, version INTEGER NOT NULL) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS memories_version_insert AFTER INSERT ON memories BEGIN
  UPDATE memory_changes SET sequence = sequence + 1;
  INSERT INTO person_versions (user_id, version) VALUES (new.user_id, (SELECT sequence FROM memory_changes))
    ON CONFLICT (user_id) DO UPDATE SET version = excluded.version;
END;
CREATE TRIGGER IF NOT EXISTS memories_version_update AFTER UPDATE OF user_id, scope, content ON memories BEGIN
  UPDATE memory_changes SET sequence = sequence + 1;
  INSERT INTO person_versions (user_id, version) VALUES (new.user_id, (SELECT sequence FROM memory_changes))
    ON CONFLICT (user_id) DO UPDATE SET version = excluded.version;
END;
CREATE TRIGGER IF NOT EXISTS memories_version_delete AFTER DELETE ON memories BEGIN
  UPDATE memory_changes SET sequence = sequence + 1;
  INSERT INTO person_versions (user_id, version) VALUES (old.user_id, (SELECT sequence FROM memory_changes))
    ON CONFLICT (user_id) DO UPDATE SET version = excluded.version;
END;
CREATE TABLE IF NOT EXISTS session_links (
  session_id TEXT NOT NULL,
  memory_rowid INTEGER NOT NULL REFERENCES memories (rowid) ON DELETE CASCADE,
  user_id TEXT NOT NULL,
  PRIMARY KEY (session_id, memory_rowid)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS session_links_memory ON session_links (memory_rowid);
CREATE INDEX IF NOT EXISTS session_links_user ON session_links (user_id, session_id);
`;

/** BM25 over `content`; `partition_keys` holds the partition tokens below and is weighted 0. */
export const FTS_TABLE_SQL = `CREATE VIRTUAL TABLE IF NOT EXISTS memories_fts USING fts5 (
  partition_keys, content, content = '', contentless_delete = 1,
  tokenize = 'porter unicode61 remove_diacritics 2'
)`;

/**
 * Vectors per person in sqlite-vec: the person is the partition key, so a KNN reads only that
 * person's chunks. Vectors are stored unit-length with the default L2 metric, which ranks exactly
 * like cosine (‖a − b‖² = 2 − 2·cos) and is cheaper per row than sqlite-vec's cosine. Chunks of
 * 64 vectors: a person with few memories takes 64 slots (96 KiB at 384 dimensions) instead of
 * the default 1,024 (1.5 MiB), and sqlite-vec's per-chunk top-k selection, which costs
 * k × chunk size, stays small for the deep candidate lists hybrid search asks for.
 */
export function vectorTableSql(dimensions: number): string {
  return `CREATE VIRTUAL TABLE IF NOT EXISTS memories_vec USING vec0 (
    user_id TEXT PARTITION KEY, scope TEXT, embedding FLOAT[${dimensions}], chunk_size = ${VECTOR_CHUNK_SIZE}
  )`;
}

const VECTOR_CHUNK_SIZE = 64;

/**
 * The same unit vectors by rowid in a plain table (schema 3): the quantised pre-filter re-scores
 * its few hundred candidates from here with sqlite-vec's own distance function, a B-tree lookup
 * each (~2 µs) instead of a vec0 point query (~20 µs). Costs 1.5 KiB a memory on disk at 384
 * dimensions; written and deleted with the `memories_vec` row.
 */
export const VECTOR_COPY_TABLE_SQL =
  'CREATE TABLE IF NOT EXISTS memory_vectors (rowid INTEGER PRIMARY KEY, embedding BLOB NOT NULL)';

/**
 * FTS5 tokens naming the partitions a memory belongs to: the person, the person's scope, and
 * each session it is linked to. A query intersects its partition token's posting list with the
 * words instead of scoring every person's matches. Hex (and a hash for sessions) keeps each one
 * a single token the tokenizer and the porter stemmer leave alone (every token ends in `x`).
 * The SQL filters on the `memories` table stay the authority over what is returned.
 */
export function personToken(userId: string): string {
  return `u${Buffer.from(userId, 'utf8').toString('hex')}x`;
}

const SCOPE_CODES: Record<MemoryScope, string> = { user: '1', global: '2', session: '3' };

export function scopeToken(userId: string, scope: MemoryScope): string {
  return `${personToken(userId)}${SCOPE_CODES[scope]}x`;
}

export function sessionToken(userId: string, sessionId: string): string {
  // A conversation's searches ask for the same token on every turn (once per lexical part): the
  // recent ones are kept rather than hashed again. The key holds both ids, the person's length
  // first, so no two (person, session) pairs share one.
  const key = `${userId.length}:${userId}${sessionId}`;
  const known = recentSessionTokens.get(key);
  if (known !== undefined) return known;
  const digest = createHash('sha256').update(userId).update('\u0000').update(sessionId).digest('hex');
  const token = `s${digest.slice(0, 32)}x`;
  if (recentSessionTokens.size >= RECENT_SESSION_TOKENS) recentSessionTokens.clear();
  recentSessionTokens.set(key, token);
  return token;
}

/** How many (person, session) tokens are kept; past it the memo starts over. */
const RECENT_SESSION_TOKENS = 1_000;
const recentSessionTokens = new Map<string, string>();

/** The `partition_keys` column of one memory's FTS5 row. */
export function partitionKeys(userId: string, scope: MemoryScope, sessionIds: readonly string[]): string {
  return [
    personToken(userId),
    scopeToken(userId, scope),
    ...sessionIds.map((sessionId) => sessionToken(userId, sessionId)),
  ].join(' ');
}

export interface MemoryRow {
  rowid: number;
  id: string;
  user_id: string;
  scope: string;
  session_id: string | null;
  content: string;
  category: string;
  source: string;
  created_at: number;
  updated_at: number;
  last_used_at: number | null;
  hash: string;
  metadata: string;
}

/** The columns of `MemoryRow`, for reads that must not pull more than they use. */
export const MEMORY_COLUMNS =
  'rowid, id, user_id, scope, session_id, content, category, source, created_at, updated_at, last_used_at, hash, metadata';

/**
 * A row read as an array (`StatementSync.setReturnArrays`), in `MEMORY_COLUMNS` order. node:sqlite
 * makes each row object from its column names, one V8 string lookup per column and row (~5 µs a
 * row of these 13 columns on a small VM); an array and this literal cost a fraction of that.
 */
export function memoryRowOf(values: readonly unknown[]): MemoryRow {
  return {
    rowid: values[0] as number,
    id: values[1] as string,
    user_id: values[2] as string,
    scope: values[3] as string,
    session_id: values[4] as string | null,
    content: values[5] as string,
    category: values[6] as string,
    source: values[7] as string,
    created_at: values[8] as number,
    updated_at: values[9] as number,
    last_used_at: values[10] as number | null,
    hash: values[11] as string,
    metadata: values[12] as string,
  };
}

export function memoryFromRow(row: MemoryRow): Memory {
  const memory: Memory = {
    id: row.id,
    userId: row.user_id,
    scope: row.scope as Memory['scope'],
    content: row.content,
    category: row.category as Memory['category'],
    source: row.source as Memory['source'],
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    hash: row.hash,
    metadata: JSON.parse(row.metadata) as Memory['metadata'],
  };
  if (row.session_id !== null) memory.sessionId = row.session_id;
  if (row.last_used_at !== null) memory.lastUsedAt = row.last_used_at;
  return memory;
}

/**
 * The vector as sqlite-vec stores it: unit length (so L2 ranks like cosine), raw float32 bytes.
 * Undefined for an all-zero vector, which has no direction: such a memory is found lexically only.
 */
export function unitVectorBytes(embedding: Float32Array): Uint8Array | undefined {
  let sumOfSquares = 0;
  for (const value of embedding) sumOfSquares += value * value;
  if (!(sumOfSquares > 0) || !Number.isFinite(sumOfSquares)) return undefined;
  const scale = 1 / Math.sqrt(sumOfSquares);
  const unit = new Float32Array(embedding.length);
  for (let index = 0; index < embedding.length; index++) unit[index] = (embedding[index] ?? 0) * scale;
  return new Uint8Array(unit.buffer);
}

/** Cosine similarity from the L2 distance of two unit vectors. */
export function similarityFromDistance(distance: number): number {
  return 1 - (distance * distance) / 2;
}
