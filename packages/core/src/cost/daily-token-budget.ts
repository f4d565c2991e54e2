import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { openSqliteDatabase } from '@nexus/sqlite-kit';

export interface DailyAllowance {
  allowed: boolean;
  /** Tokens charged to the person today. */
  spent: number;
  limit: number;
  /** Epoch ms of the next day boundary (00:00 UTC). */
  resetsAt: number;
}

/**
 * Input plus output tokens per person per UTC day, kept in SQLite so a restart does not hand out
 * a fresh allowance. Checked before a turn, charged after it: one turn may overrun the limit by
 * its own cost (at most the per-message caps), the next one is refused.
 */
export interface DailyTokenBudget {
  readonly tokensPerDay: number;
  check(userId: string, now: number): DailyAllowance;
  charge(userId: string, tokens: number, now: number): void;
  /** Removes every day's spend of a person (for `/forget-me`); returns the rows removed. */
  forget(userId: string): number;
  close(): void;
}

const MIGRATIONS = [
  `CREATE TABLE token_spend (
     user_id TEXT NOT NULL,
     day TEXT NOT NULL,
     tokens INTEGER NOT NULL,
     PRIMARY KEY (user_id, day)
   ) WITHOUT ROWID;`,
];

const DAY_MS = 86_400_000;
/** Days of spend kept after they end, for an operator looking back; older rows are removed. */
const KEPT_DAYS = 7;

export function createSqliteDailyTokenBudget(options: {
  /** A file path, or ':memory:'. */
  path: string;
  tokensPerDay: number;
}): DailyTokenBudget {
  if (!Number.isInteger(options.tokensPerDay) || options.tokensPerDay < 1)
    throw new RangeError(`tokensPerDay must be a whole number of at least 1 (got ${options.tokensPerDay}).`);
  const database: DatabaseSync = openSqliteDatabase({
    path: options.path,
    migrations: MIGRATIONS,
    storeName: 'token budget store',
  });
  const read: StatementSync = database.prepare(
    'SELECT tokens FROM token_spend WHERE user_id = ? AND day = ?',
  );
  const add: StatementSync = database.prepare(
    `INSERT INTO token_spend (user_id, day, tokens) VALUES (?, ?, ?)
     ON CONFLICT (user_id, day) DO UPDATE SET tokens = tokens + excluded.tokens`,
  );
  const remove: StatementSync = database.prepare('DELETE FROM token_spend WHERE user_id = ?');
  const prune: StatementSync = database.prepare('DELETE FROM token_spend WHERE day < ?');
  let prunedDay = '';

  return {
    tokensPerDay: options.tokensPerDay,
    check(userId, now) {
      const row = read.get(userId, dayOf(now)) as { tokens: number } | undefined;
      const spent = row?.tokens ?? 0;
      return {
        allowed: spent < options.tokensPerDay,
        spent,
        limit: options.tokensPerDay,
        resetsAt: nextDayStart(now),
      };
    },
    charge(userId, tokens, now) {
      const day = dayOf(now);
      if (day !== prunedDay) {
        prune.run(dayOf(now - KEPT_DAYS * DAY_MS));
        prunedDay = day;
      }
      if (tokens > 0) add.run(userId, day, Math.round(tokens));
    },
    forget(userId) {
      return Number(remove.run(userId).changes);
    },
    close() {
      if (database.isOpen) database.close();
    },
  };
}

function dayOf(now: number): string {
  return new Date(now).toISOString().slice(0, 10);
}

function nextDayStart(now: number): number {
  return Math.floor(now / DAY_MS) * DAY_MS + DAY_MS;
}

/** The reply to a person over their daily allowance, saying when it comes back. */
export function dailyBudgetReply(allowance: DailyAllowance, now: number): string {
  const minutes = Math.max(1, Math.ceil((allowance.resetsAt - now) / 60_000));
  const wait = minutes >= 60 ? `${Math.floor(minutes / 60)} h ${minutes % 60} min` : `${minutes} min`;
  return `You have used today's allowance of ${allowance.limit.toLocaleString('en-US')} tokens, so I cannot answer until it resets at 00:00 UTC (in ${wait}). Commands such as /help still work.`;
}
