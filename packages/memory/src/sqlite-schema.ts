import type { Memory } from './memory.ts';

/** Schema of the embedded store. `rowid` ties a memory to its FTS5 row and its sqlite-vec row. */
export const SQLITE_SCHEMA = `
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
CREATE TABLE IF NOT EXISTS session_links (
  session_id TEXT NOT NULL,
  memory_rowid INTEGER NOT NULL REFERENCES memories (rowid) ON DELETE CASCADE,
  user_id TEXT NOT NULL,
  PRIMARY KEY (session_id, memory_rowid)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS session_links_memory ON session_links (memory_rowid);
CREATE INDEX IF NOT EXISTS session_links_user ON session_links (user_id, session_id);
CREATE VIRTUAL TABLE IF NOT EXISTS memories_fts USING fts5 (
  user_key, content, content = '', contentless_delete = 1,
  tokenize = 'porter unicode61 remove_diacritics 2'
);
`;

/** The vector table: the person is sqlite-vec's partition key, so a KNN scan reads one person. */
export function vectorTableSql(dimensions: number): string {
  return `CREATE VIRTUAL TABLE IF NOT EXISTS memories_vec USING vec0 (
    user_id TEXT PARTITION KEY, scope TEXT, embedding FLOAT[${dimensions}] distance_metric=cosine
  )`;
}

/**
 * FTS5 token standing for one person: hex keeps any user id a single token the tokenizer and
 * the porter stemmer leave alone. The SQL filter on `user_id` stays the authority; this token
 * only lets FTS5 intersect posting lists instead of scoring every person's matches.
 */
export function userKey(userId: string): string {
  return `u${Buffer.from(userId, 'utf8').toString('hex')}x`;
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

export function vectorBytes(embedding: Float32Array): Uint8Array {
  return new Uint8Array(embedding.buffer, embedding.byteOffset, embedding.byteLength);
}
