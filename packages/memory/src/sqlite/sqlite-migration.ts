import type { DatabaseSync } from 'node:sqlite';
import { inTransaction } from '@nexus/sqlite-kit';
import type { MemoryScope } from '../model/memory.ts';
import {
  FTS_TABLE_SQL,
  partitionKeys,
  SQLITE_SCHEMA_VERSION,
  unitVectorBytes,
  VECTOR_COPY_TABLE_SQL,
  vectorTableSql,
} from './sqlite-schema.ts';

/**
 * Creates the search indexes, or rebuilds them when the file was written by an older layout
 * (version 1: one person token per FTS row, cosine vectors in 1,024-slot chunks; version 2: no
 * plain copy of the vectors, which is then filled from sqlite-vec). Memories,
 * session links and vectors are kept; only the FTS5 and sqlite-vec tables are rewritten, in
 * one transaction. Runs after the base tables exist and the vector space is known.
 */
export function prepareSearchIndexes(database: DatabaseSync, dimensions: number | undefined): void {
  const stored = database.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as
    | { value: string }
    | undefined;
  const hasFts = tableExists(database, 'memories_fts');
  const version = stored ? Number(stored.value) : hasFts ? 1 : SQLITE_SCHEMA_VERSION;
  if (version > SQLITE_SCHEMA_VERSION) {
    throw new Error(
      `The memory store was written by a newer version (schema ${version}, this one reads ${SQLITE_SCHEMA_VERSION}).`,
    );
  }
  inTransaction(database, () => {
    if (version < 2) rebuildFromVersion1(database, dimensions);
    database.exec(FTS_TABLE_SQL);
    if (dimensions !== undefined) {
      database.exec(vectorTableSql(dimensions));
      database.exec(VECTOR_COPY_TABLE_SQL);
      // Version 3 added the plain copy of the vectors; earlier files get it from sqlite-vec.
      if (version < 3) copyVectors(database);
    }
    // Written only when it changes: a commit on every open would make each other connection
    // (the gateway's) drop its quantised indexes, as `PRAGMA data_version` would move.
    if (stored?.value !== String(SQLITE_SCHEMA_VERSION)) {
      database
        .prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)")
        .run(String(SQLITE_SCHEMA_VERSION));
    }
  });
}

function rebuildFromVersion1(database: DatabaseSync, dimensions: number | undefined): void {
  // Vectors are parked in a plain table (not in memory) while the vec0 table is recreated.
  const hadVectors = tableExists(database, 'memories_vec');
  if (hadVectors) {
    database.exec(
      'CREATE TABLE memories_vec_v1 (rowid INTEGER PRIMARY KEY, user_id TEXT, scope TEXT, embedding BLOB)',
    );
    const park = database.prepare(
      'INSERT INTO memories_vec_v1 (rowid, user_id, scope, embedding) VALUES (?, ?, ?, ?)',
    );
    const rows = database
      .prepare('SELECT rowid, user_id, scope, embedding FROM memories_vec')
      .iterate() as Iterable<{
      rowid: number;
      user_id: string;
      scope: string;
      embedding: Uint8Array;
    }>;
    for (const row of rows) {
      const floats = new Float32Array(row.embedding.slice().buffer);
      const unit = unitVectorBytes(floats);
      if (unit) park.run(row.rowid, row.user_id, row.scope, unit);
    }
    database.exec('DROP TABLE memories_vec');
  }
  database.exec('DROP TABLE IF EXISTS memories_fts');
  database.exec(FTS_TABLE_SQL);
  const insertFts = database.prepare(
    'INSERT INTO memories_fts (rowid, partition_keys, content) VALUES (?, ?, ?)',
  );
  const memories = database
    .prepare(
      `SELECT m.rowid, m.user_id, m.scope, m.content,
         (SELECT json_group_array(session_id) FROM session_links l WHERE l.memory_rowid = m.rowid) AS sessions
       FROM memories m`,
    )
    .iterate() as Iterable<{
    rowid: number;
    user_id: string;
    scope: string;
    content: string;
    sessions: string;
  }>;
  for (const row of memories) {
    const sessions = JSON.parse(row.sessions) as string[];
    insertFts.run(row.rowid, partitionKeys(row.user_id, row.scope as MemoryScope, sessions), row.content);
  }
  if (!hadVectors) return;
  if (dimensions !== undefined) {
    database.exec(vectorTableSql(dimensions));
    database.exec(
      `INSERT INTO memories_vec (rowid, user_id, scope, embedding)
       SELECT rowid, user_id, scope, embedding FROM memories_vec_v1`,
    );
  }
  database.exec('DROP TABLE memories_vec_v1');
}

function copyVectors(database: DatabaseSync): void {
  database.exec(
    'INSERT OR REPLACE INTO memory_vectors (rowid, embedding) SELECT rowid, embedding FROM memories_vec',
  );
}

function tableExists(database: DatabaseSync, name: string): boolean {
  return database.prepare('SELECT 1 FROM sqlite_master WHERE name = ?').get(name) !== undefined;
}
