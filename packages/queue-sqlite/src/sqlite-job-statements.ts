import type { DatabaseSync } from 'node:sqlite';

/**
 * The job store's statements other than the claim, prepared once per connection. The job store
 * (`sqlite-job-store.ts`) says what each write guarantees; the statements' own comments say why
 * they are written as they are.
 */
export function prepareJobStatements(database: DatabaseSync) {
  return { ...lifecycleStatements(database), ...retentionStatements(database) };
}

/** A job's way through the queue: in, leased, renewed, completed, retried, parked or released. */
function lifecycleStatements(database: DatabaseSync) {
  return {
    lease: database.prepare(
      `UPDATE jobs SET status = 'active', attempts_started = attempts_started + 1,
         lease_token = ?, lease_until = ?
       WHERE seq = ? AND status = 'waiting'`,
    ),
    insert: database.prepare(
      `INSERT INTO jobs (name, id, payload, status, run_at, max_attempts, backoff_type, backoff_delay_ms, created_at, traceparent)
       VALUES (?, ?, ?, 'waiting', ?, ?, ?, ?, ?, ?)
       ON CONFLICT (name, id) DO NOTHING`,
    ),
    // The job with this key that has not started yet takes the new payload, options and run
    // time (its id and created_at stay); without one, a new job. Returns the id holding the job.
    debounce: database.prepare(
      `INSERT INTO jobs (name, id, payload, status, run_at, max_attempts, backoff_type, backoff_delay_ms, created_at, traceparent, debounce_key)
       VALUES (?, ?, ?, 'waiting', ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (name, debounce_key) WHERE debounce_key IS NOT NULL AND status = 'waiting' AND attempts_started = 0
       DO UPDATE SET payload = excluded.payload, run_at = excluded.run_at, max_attempts = excluded.max_attempts,
         backoff_type = excluded.backoff_type, backoff_delay_ms = excluded.backoff_delay_ms,
         traceparent = excluded.traceparent
       RETURNING id`,
    ),
    recover: database.prepare(
      `UPDATE jobs SET
         lease_expiries = lease_expiries + 1,
         status = CASE WHEN lease_expiries + 1 > :maxLeaseExpiries THEN 'parked' ELSE 'waiting' END,
         attempts_failed = CASE WHEN lease_expiries + 1 > :maxLeaseExpiries THEN attempts_failed + 1 ELSE attempts_failed END,
         finished_at = CASE WHEN lease_expiries + 1 > :maxLeaseExpiries THEN :now ELSE NULL END,
         last_error = CASE WHEN lease_expiries + 1 > :maxLeaseExpiries THEN :reason ELSE last_error END,
         lease_token = NULL, lease_until = NULL
       WHERE name = :name AND status = 'active' AND lease_until <= :now
       RETURNING id, status`,
    ),
    renew: database.prepare(
      `UPDATE jobs SET lease_until = ? WHERE seq = ? AND lease_token = ? AND status = 'active'`,
    ),
    complete: database.prepare(
      `UPDATE jobs SET status = 'completed', finished_at = ?, lease_token = NULL, lease_until = NULL
       WHERE seq = ? AND lease_token = ? AND status = 'active'`,
    ),
    retry: database.prepare(
      `UPDATE jobs SET status = 'waiting', attempts_failed = attempts_failed + 1, run_at = ?, last_error = ?,
         lease_token = NULL, lease_until = NULL
       WHERE seq = ? AND lease_token = ? AND status = 'active'`,
    ),
    park: database.prepare(
      `UPDATE jobs SET status = 'parked', attempts_failed = attempts_failed + 1, finished_at = ?, last_error = ?,
         lease_token = NULL, lease_until = NULL
       WHERE seq = ? AND lease_token = ? AND status = 'active'`,
    ),
    release: database.prepare(
      `UPDATE jobs SET status = 'waiting', lease_token = NULL, lease_until = NULL
       WHERE seq = ? AND lease_token = ? AND status = 'active'`,
    ),
  };
}

/** What is kept: parked jobs and their retry, the counts, and the prune and purge of finished jobs. */
function retentionStatements(database: DatabaseSync) {
  return {
    parked: database.prepare(
      `SELECT id, name, payload, attempts_failed, last_error, finished_at FROM jobs
       WHERE status = 'parked' AND finished_at IS NOT NULL AND (:name IS NULL OR name = :name)
       ORDER BY finished_at DESC, seq DESC LIMIT :limit`,
    ),
    retryParked: database.prepare(
      `UPDATE jobs SET status = 'waiting', run_at = :now, attempts_failed = 0, lease_expiries = 0,
         finished_at = NULL
       WHERE id = :id AND status = 'parked' AND (:name IS NULL OR name = :name)
       RETURNING name`,
    ),
    counts: database.prepare(
      `SELECT
         COALESCE(SUM(status = 'waiting' AND run_at <= :now), 0) AS waiting,
         COALESCE(SUM(status = 'waiting' AND run_at > :now), 0) AS delayed,
         COALESCE(SUM(status = 'active'), 0) AS active,
         COALESCE(SUM(status = 'parked'), 0) AS parked,
         COALESCE(SUM(status = 'completed'), 0) AS completed
       FROM jobs WHERE (:name IS NULL OR name = :name)`,
    ),
    pruneCompleted: database.prepare(`DELETE FROM jobs WHERE status = 'completed' AND finished_at < ?`),
    pruneParkedBefore: database.prepare(`DELETE FROM jobs WHERE status = 'parked' AND finished_at < ?`),
    // The names with parked jobs, one index seek each (a skip scan of jobs_parked), not a read
    // of every parked job: with the newest 1000 kept per name, the whole prune reads about 1000
    // index entries per name (0.1–0.2 ms for 3 names × 1000 parked, beside 20k completed jobs; one
    // statement ranking every parked job with a window function took 1.4–5 ms).
    parkedNames: database.prepare(
      `WITH RECURSIVE names(name) AS (
         SELECT MIN(name) FROM jobs WHERE status = 'parked'
         UNION ALL
         SELECT (SELECT MIN(name) FROM jobs WHERE status = 'parked' AND name > names.name)
         FROM names WHERE names.name IS NOT NULL)
       SELECT name FROM names WHERE name IS NOT NULL`,
    ),
    // The newest parked job of the name past the ones kept, in the order `parked()` lists them
    // (last failure first, then last enqueued); undefined while the name is within its count.
    // `name = +?`: see the claim (`sqlite-job-store.ts`).
    firstParkedOverCount: database.prepare(
      `SELECT finished_at, seq FROM jobs WHERE status = 'parked' AND name = +?
       ORDER BY finished_at DESC, seq DESC LIMIT 1 OFFSET ?`,
    ),
    pruneParkedUpTo: database.prepare(
      `DELETE FROM jobs WHERE status = 'parked' AND name = +? AND (finished_at, seq) <= (?, ?)`,
    ),
    purge: database.prepare('DELETE FROM jobs WHERE instr(payload, ?) > 0 RETURNING id, status'),
  };
}

export type JobStatements = ReturnType<typeof prepareJobStatements>;
