import type { DatabaseSync, StatementSync } from 'node:sqlite';

/**
 * One prepared statement per row limit, the limit written into the SQL as a literal. With a bound
 * `LIMIT ?`, SQLite plans without knowing the limit and loses the early stop of an ordered index
 * scan: a job claim (`ORDER BY run_at, seq LIMIT 1`) cost 75 µs against 11–25 µs, a history read
 * (`ORDER BY seq DESC LIMIT 20`) 48–60 against 23–35 µs (in memory, node:sqlite). Limits come
 * from settings and free slots, so only a few statements are ever prepared.
 */
export function statementsPerLimit(
  database: DatabaseSync,
  sqlWithLimit: (limit: number) => string,
): (limit: number) => StatementSync {
  const prepared = new Map<number, StatementSync>();
  return (limit) => {
    // Written into the SQL text: only ever a whole number.
    if (!Number.isSafeInteger(limit) || limit < 0)
      throw new RangeError(`a row limit must be a whole number ≥ 0 (got ${limit})`);
    let statement = prepared.get(limit);
    if (!statement) {
      statement = database.prepare(sqlWithLimit(limit));
      prepared.set(limit, statement);
    }
    return statement;
  };
}
