import type { DatabaseSync } from 'node:sqlite';
import { inTransaction } from '../identity/access-database.ts';

export interface CodeAttemptLimits {
  /** Wrong codes allowed within `windowMs` before code entry locks. */
  maxFailures: number;
  windowMs: number;
  lockoutMs: number;
}

/**
 * Counts wrong codes per subject (an identity key, or `*` for everyone together) and locks code
 * entry after too many. Kept in SQLite, so a restart does not hand a guesser fresh tries.
 */
export interface CodeAttempts {
  /** The end of the subject's lockout, when one is running. */
  lockedUntil(subject: string): number | undefined;
  /** Wrong codes counted in the subject's current window (0 once `windowMs` passed). */
  failures(subject: string, limits: CodeAttemptLimits): number;
  /** Counts a wrong code; returns the lockout end when this failure started one. */
  recordFailure(subject: string, limits: CodeAttemptLimits): { failures: number; lockedUntil?: number };
  clear(subject: string): void;
}

interface AttemptRow {
  failures: number;
  window_started_at: number;
  locked_until: number | null;
}

export function createCodeAttempts(database: DatabaseSync, now: () => number): CodeAttempts {
  const get = database.prepare(
    'SELECT failures, window_started_at, locked_until FROM code_attempts WHERE subject = ?',
  );
  const put = database.prepare(
    `INSERT INTO code_attempts (subject, failures, window_started_at, locked_until) VALUES (?, ?, ?, ?)
     ON CONFLICT (subject) DO UPDATE SET failures = excluded.failures,
       window_started_at = excluded.window_started_at, locked_until = excluded.locked_until`,
  );
  const remove = database.prepare('DELETE FROM code_attempts WHERE subject = ?');

  return {
    lockedUntil(subject) {
      const row = get.get(subject) as AttemptRow | undefined;
      return row?.locked_until != null && row.locked_until > now() ? row.locked_until : undefined;
    },
    failures(subject, limits) {
      const row = get.get(subject) as AttemptRow | undefined;
      return row && now() - row.window_started_at < limits.windowMs ? row.failures : 0;
    },
    recordFailure(subject, limits) {
      return inTransaction(database, () => {
        const at = now();
        const row = get.get(subject) as AttemptRow | undefined;
        const fresh = !row || at - row.window_started_at >= limits.windowMs;
        const failures = fresh ? 1 : row.failures + 1;
        const windowStartedAt = fresh ? at : row.window_started_at;
        const lockedUntil = failures >= limits.maxFailures ? at + limits.lockoutMs : undefined;
        // A lockout restarts the count, so the next window after it allows `maxFailures` again;
        // failures during a running lockout (the overall one) count without ending it.
        const running = row?.locked_until != null && row.locked_until > at ? row.locked_until : null;
        put.run(
          subject,
          lockedUntil ? 0 : failures,
          lockedUntil ? at : windowStartedAt,
          lockedUntil ?? running,
        );
        return lockedUntil ? { failures, lockedUntil } : { failures };
      });
    },
    clear(subject) {
      remove.run(subject);
    },
  };
}
