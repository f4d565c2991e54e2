import type { StatementSync } from 'node:sqlite';
import { GLOBAL_USER_ID, type Memory, type MemoryScope, type MemoryStats } from '../model/memory.ts';
import { MEMORY_COLUMNS, type MemoryRow, memoryFromRow, memoryRowOf } from './sqlite-schema.ts';

/** Prepared once per SQL text by the store (`#statement`). */
export type Statements = (sql: string) => StatementSync;

export const MEMORY_COLUMNS_OF_M = MEMORY_COLUMNS.split(', ')
  .map((column) => `m.${column}`)
  .join(', ');

/** Rows by rowid, restricted in SQL to the person (and scope / session when given). */
export function memoriesByRowid(
  statement: Statements,
  rowids: readonly number[],
  filter: { userId: string; scopes?: readonly MemoryScope[] | undefined; sessionId?: string | undefined },
): Map<number, Memory> {
  const result = new Map<number, Memory>();
  if (rowids.length === 0) return result;
  const filters = filterSql(filter.scopes, filter.sessionId);
  // `+` keeps SQLite on the rowid lookups instead of scanning the person's index.
  const read = statement(
    `SELECT ${MEMORY_COLUMNS} FROM memories WHERE rowid IN (SELECT value FROM json_each(?))
     AND +user_id = ?${filters.sql('+scope', 'rowid')}`,
  );
  // Rows as arrays (`memoryRowOf`): this statement is this function's alone.
  read.setReturnArrays(true);
  const rows = read.all(JSON.stringify(rowids), filter.userId, ...filters.values) as unknown as unknown[][];
  for (const values of rows) {
    const row = memoryRowOf(values);
    result.set(row.rowid, memoryFromRow(row));
  }
  return result;
}

/** The store's totals and per-person counts (`MemoryStore.stats`), one person's when `userId` is set. */
export function readMemoryStats(statement: Statements, userId: string | undefined): MemoryStats {
  const totals = statement(
    `SELECT count(*) AS memories, count(DISTINCT nullif(user_id, ?)) AS users,
       sum(user_id = ?) AS global FROM memories`,
  ).get(GLOBAL_USER_ID, GLOBAL_USER_ID) as { memories: number; users: number; global: number | null };
  const sessions = statement('SELECT count(DISTINCT session_id) AS sessions FROM session_links').get() as {
    sessions: number;
  };
  const personFilter = userId === undefined ? 'user_id != ?' : 'user_id = ?';
  const person = userId ?? GLOBAL_USER_ID;
  const users = statement(
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

export function memoryValues(memory: Memory): Array<string | number | null> {
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

export function filterSql(scopes: readonly MemoryScope[] | undefined, sessionId: string | undefined) {
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

/** The memories linked to a session (`MemoryStore.sessionMemories`), oldest first. */
export function readSessionMemories(
  statement: Statements,
  options: { sessionId: string; userId?: string | undefined },
): Memory[] {
  const personFilter = options.userId === undefined ? '' : ' AND l.user_id = ?';
  const values = options.userId === undefined ? [options.sessionId] : [options.sessionId, options.userId];
  const rows = statement(
    `SELECT ${MEMORY_COLUMNS_OF_M} FROM session_links l JOIN memories m ON m.rowid = l.memory_rowid
     WHERE l.session_id = ?${personFilter} ORDER BY m.created_at, m.id`,
  ).all(...values) as unknown as MemoryRow[];
  return rows.map(memoryFromRow);
}
