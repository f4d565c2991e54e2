import type { StatementSync } from 'node:sqlite';
import type { MemoryScope } from '../model/memory.ts';
import type { RowRanking } from '../model/row-ranking.ts';
import type { QuantisedVectorIndex } from '../vectors/quantised-vector-index.ts';
import { personToken, scopeToken, sessionToken, similarityFromDistance } from './sqlite-schema.ts';

/** sqlite-vec answers at most this many neighbours per KNN query. */
export const MAX_KNN = 4096;

export interface SearchPartition {
  userId: string;
  scopes?: readonly MemoryScope[] | undefined;
  sessionId?: string | undefined;
}

type Statements = (sql: string) => StatementSync;

/**
 * The partition's scope condition on `column` (`AND scope IN (?, …)`) and the values it binds;
 * no condition when the partition takes every scope (an empty list matches nothing, as `IN ()` does).
 */
function scopeFilter(column: string, scopes: readonly MemoryScope[] | undefined) {
  if (!scopes) return { sql: '', values: [] as readonly MemoryScope[] };
  return { sql: ` AND ${column} IN (${scopes.map(() => '?').join(', ')})`, values: scopes };
}

type Distances = Array<{ rowid: number; distance: number }>;

/** The `limit` nearest, ties by rowid (every ranking in this store cuts the same way), as scores. */
function nearestFirst(rows: Distances, limit: number): RowRanking {
  rows.sort((left, right) => left.distance - right.distance || left.rowid - right.rowid);
  return rows
    .slice(0, limit)
    .map((row) => ({ rowid: row.rowid, score: similarityFromDistance(row.distance) }));
}

/**
 * BM25 top `limit` in SQLite itself: FTS5 intersects the partition token with the words and the
 * sort keeps only the best rows, so no memory row is read for the matches that are not kept.
 * Ties are ordered by rowid so the cut is deterministic.
 */
export function lexicalRanking(
  statements: Statements,
  partition: SearchPartition,
  terms: readonly string[],
  limit: number,
): RowRanking {
  const rows = statements(
    `SELECT rowid, bm25(memories_fts, 0.0, 1.0) AS lexical FROM memories_fts
     WHERE memories_fts MATCH ? ORDER BY lexical, rowid LIMIT ?`,
  ).all(lexicalMatch(partition, terms), limit) as Array<{ rowid: number; lexical: number }>;
  // FTS5's bm25() is lower-is-better; negate it so the ranking is higher-is-better.
  return rows.map((row) => ({ rowid: row.rowid, score: -row.lexical }));
}

/**
 * Whether FTS5 finds any of the terms in the partition: the same match as `lexicalRanking`, so
 * false means every ranking of any subset of these terms would be empty; nothing is scored.
 */
export function anyLexicalMatch(
  statements: Statements,
  partition: SearchPartition,
  terms: readonly string[],
) {
  return (
    statements('SELECT rowid FROM memories_fts WHERE memories_fts MATCH ? LIMIT 1').get(
      lexicalMatch(partition, terms),
    ) !== undefined
  );
}

function lexicalMatch(partition: SearchPartition, terms: readonly string[]): string {
  return `${partitionMatch(partition)} AND content : (${terms.map((term) => `"${term}"`).join(' OR ')})`;
}

/** The FTS5 expression of the partition's tokens: one string per person, scope set or session. */
export function partitionMatch(partition: SearchPartition): string {
  const { userId, scopes, sessionId } = partition;
  const anyOf = (tokens: string[]) => `(${tokens.map((token) => `"${token}"`).join(' OR ')})`;
  const parts: string[] = [];
  if (sessionId !== undefined) parts.push(`"${sessionToken(userId, sessionId)}"`);
  if (scopes) parts.push(anyOf(scopes.map((scope) => scopeToken(userId, scope))));
  if (parts.length === 0) parts.push(`"${personToken(userId)}"`);
  return parts.map((part) => `partition_keys : ${part}`).join(' AND ');
}

/**
 * Cosine top `limit`. A person's or scope's candidates come from sqlite-vec's KNN over the
 * person's partition (exact: every vector of the person is compared). A session's come from
 * its links: only the linked memories' vectors are read and compared, so an empty or small
 * session costs next to nothing however many memories the person has.
 */
export function denseRanking(
  statements: Statements,
  partition: SearchPartition,
  query: Uint8Array,
  limit: number,
  index?: QuantisedVectorIndex,
  /** A session's linked memories (`sessionLinks`), when the caller has read them already. */
  linked?: readonly number[],
  /** The person has few memories: compare each of their vectors rather than ask sqlite-vec. */
  few?: boolean,
): RowRanking {
  if (partition.sessionId !== undefined)
    return sessionDenseRanking(statements, linked ?? sessionLinks(statements, partition), query, limit);
  if (index) return quantisedDenseRanking(statements, partition, query, limit, index);
  if (few) return fewDenseRanking(statements, partition, query, limit);
  return exactDenseRanking(statements, partition, query, limit);
}

/**
 * The same top `limit` as `exactDenseRanking` for a person with few memories: each of their
 * vectors compared by sqlite-vec's own distance from the plain copy (`memory_vectors`), ties cut
 * by rowid. A KNN over a small partition costs several times that: sqlite-vec prepares its own
 * statements on its shadow tables for every query and reads a chunk of 64 slots. No join and no
 * bound `LIMIT` (SQLite 3.54 re-plans a statement with either on every run: see `sessionLinks`).
 */
function fewDenseRanking(
  statements: Statements,
  partition: SearchPartition,
  query: Uint8Array,
  limit: number,
): RowRanking {
  const scope = scopeFilter('scope', partition.scopes);
  const rows = statements(
    `SELECT rowid, vec_distance_l2(embedding, ?) AS distance FROM memory_vectors
     WHERE rowid IN (SELECT rowid FROM memories WHERE user_id = ?${scope.sql})`,
  ).all(query, partition.userId, ...scope.values) as Distances;
  return nearestFirst(rows, limit);
}

/**
 * sqlite-vec's exact KNN, with a defined cut: when the `limit`-th place falls in a group of
 * equally distant vectors, sqlite-vec keeps an arbitrary subset of it (it depends on the
 * chunk layout); here the group is fetched whole and cut by rowid, like every other ranking in
 * this store, so this and the quantised path return the same members, not just the same scores.
 * One extra neighbour tells whether the cut splits such a group; only then is k widened.
 */
function exactDenseRanking(
  statements: Statements,
  partition: SearchPartition,
  query: Uint8Array,
  limit: number,
): RowRanking {
  const scope = scopeFilter('scope', partition.scopes);
  const knn = statements(
    `SELECT rowid, distance FROM memories_vec WHERE embedding MATCH ? AND k = ? AND user_id = ?${scope.sql}`,
  );
  let k = Math.min(MAX_KNN, limit + 1);
  let rows: Distances;
  for (;;) {
    rows = knn.all(query, k, partition.userId, ...scope.values) as Distances;
    const cut = rows[limit - 1]?.distance;
    const groupClosed = rows.length < k || (k > limit && (rows.at(-1)?.distance ?? 0) > (cut ?? 0));
    if (cut === undefined || groupClosed) break;
    if (k === MAX_KNN) {
      rows = tiesByScan(statements, partition, query, cut, limit);
      break;
    }
    k = Math.min(MAX_KNN, k * 4);
  }
  return nearestFirst(rows, limit);
}

/** More equally distant vectors at the cut than one KNN may return: every one up to `cut`, by scan. */
function tiesByScan(
  statements: Statements,
  partition: SearchPartition,
  query: Uint8Array,
  cut: number,
  limit: number,
): Distances {
  const scope = scopeFilter('m.scope', partition.scopes);
  return statements(
    `SELECT rowid, distance FROM (SELECT m.rowid AS rowid, vec_distance_l2(v.embedding, ?) AS distance
       FROM memories m JOIN memory_vectors v ON v.rowid = m.rowid WHERE m.user_id = ?${scope.sql})
     WHERE distance <= ? ORDER BY distance, rowid LIMIT ?`,
  ).all(query, partition.userId, ...scope.values, cut, limit) as Distances;
}

/**
 * The same top `limit` as sqlite-vec's exact KNN, from the person's quantised index: the int8
 * pass names every vector that can be in the top `limit` (see `QuantisedVectorIndex`), and only
 * those are compared exactly, by sqlite-vec's own distance, so the scores are identical too.
 */
function quantisedDenseRanking(
  statements: Statements,
  partition: SearchPartition,
  query: Uint8Array,
  limit: number,
  index: QuantisedVectorIndex,
): RowRanking {
  const floats = new Float32Array(query.buffer, query.byteOffset, query.byteLength / 4);
  const candidates = index.candidates(floats, limit, partition.scopes);
  return exactRanking(statements, candidates, query, limit);
}

/** Exact distances of the candidates, from the plain copy of the vectors, best `limit` kept. */
function exactRanking(
  statements: Statements,
  rowids: readonly number[],
  query: Uint8Array,
  limit: number,
): RowRanking {
  const scored = statements(
    `SELECT rowid, vec_distance_l2(embedding, ?) AS distance FROM memory_vectors
     WHERE rowid IN (SELECT value FROM json_each(?))`,
  ).all(query, JSON.stringify(rowids)) as Distances;
  return nearestFirst(scored, limit);
}

/**
 * The rowids of the person's memories linked to the session (and in `scopes`, when given).
 *
 * The memory's own row is checked by a scalar subquery, not a join: SQLite 3.54 marks a join
 * with bound parameters (and a bound `LIMIT`) as planned for those values, so every run, bound
 * again, is compiled again (~8 authorizer calls, most of the statement's cost on a warm turn).
 */
export function sessionLinks(statements: Statements, partition: SearchPartition): number[] {
  const scope = scopeFilter('m.scope', partition.scopes);
  const rows = statements(
    `SELECT l.memory_rowid AS rowid FROM session_links l WHERE l.session_id = ? AND l.user_id = ?
     AND (SELECT m.user_id = l.user_id${scope.sql} FROM memories m WHERE m.rowid = l.memory_rowid)`,
  ).all(partition.sessionId ?? '', partition.userId, ...scope.values) as Array<{ rowid: number }>;
  return rows.map((row) => row.rowid);
}

function sessionDenseRanking(
  statements: Statements,
  linked: readonly number[],
  query: Uint8Array,
  limit: number,
): RowRanking {
  // The plain copy of the vectors (the same bytes as `memories_vec`, written and deleted with it):
  // a B-tree lookup per linked memory instead of a vec0 point query (measured 7 against 12 µs).
  const distanceOf = statements(
    'SELECT vec_distance_l2(embedding, ?) AS distance FROM memory_vectors WHERE rowid = ?',
  );
  const ranking: RowRanking = [];
  for (const rowid of linked) {
    const row = distanceOf.get(query, rowid) as { distance: number } | undefined;
    if (row) ranking.push({ rowid, score: similarityFromDistance(row.distance) });
  }
  ranking.sort((left, right) => right.score - left.score || left.rowid - right.rowid);
  return ranking.slice(0, limit);
}
