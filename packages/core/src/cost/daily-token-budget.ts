import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { CommittedCache, inTransaction, openSqliteDatabase } from '@nexus/sqlite-kit';

/** Whose allowance: a person's (over all their channels) or a group conversation's (all members). */
export type BudgetSubject = 'person' | 'group';

export interface DailyAllowance {
  allowed: boolean;
  /** Tokens charged to the person (or group) today. */
  spent: number;
  /** Infinity when that kind of budget is off. */
  limit: number;
  /** Epoch ms of the next day boundary (00:00 UTC). */
  resetsAt: number;
}

/**
 * Input plus output tokens per person, and per group conversation, per UTC day, kept in SQLite so
 * a restart does not hand out a fresh allowance. Checked before a turn, charged after it: one turn
 * may overrun the limit by its own cost (at most the per-message caps), the next one is refused.
 * Group subjects are ids starting `group:` (see `groupMemoryId`); every other id is a person.
 */
export interface DailyTokenBudget {
  /** Per person; undefined when off. */
  readonly tokensPerDay: number | undefined;
  /** Per group conversation; undefined when off. */
  readonly tokensPerGroupPerDay: number | undefined;
  check(subjectId: string, now: number): DailyAllowance;
  charge(subjectId: string, tokens: number, now: number): void;
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
const GROUP_PREFIX = 'group:';
/** Days of spend kept after they end, for an operator looking back; older rows are removed. */
const KEPT_DAYS = 7;

export function createSqliteDailyTokenBudget(options: {
  /** A file path, or ':memory:'. */
  path: string;
  /** Per person; omit for no personal limit. */
  tokensPerDay?: number | undefined;
  /** Per group conversation; omit for no group limit. */
  tokensPerGroupPerDay?: number | undefined;
  /** Told when queued charges could not be written; they stay queued and are written with the next. */
  onWriteError?: (error: unknown) => void;
}): DailyTokenBudget {
  for (const key of ['tokensPerDay', 'tokensPerGroupPerDay'] as const) {
    const value = options[key];
    if (value !== undefined && (!Number.isInteger(value) || value < 1))
      throw new RangeError(`${key} must be a whole number of at least 1 (got ${value}).`);
  }
  const limitOf = (subjectId: string): number =>
    (subjectId.startsWith(GROUP_PREFIX) ? options.tokensPerGroupPerDay : options.tokensPerDay) ??
    Number.POSITIVE_INFINITY;
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
  // Charges of one event-loop turn are written together after it, in one transaction: under load
  // that is one commit for many turns instead of one each. `check` adds what is still queued, so
  // a refusal never misses a charge; a crash can lose at most that one event-loop turn's charges.
  const queued = new Map<string, { subjectId: string; day: string; tokens: number }>();
  let writeScheduled: NodeJS.Immediate | undefined;
  const keyOf = (subjectId: string, day: string) => `${day} ${subjectId}`;
  // Spend as committed, by day and subject, since every message checks it: it changes only
  // through the writes below (which keep it in step) or another process's, which empties it.
  const committed = new CommittedCache<number>(database);
  const committedSpend = (subjectId: string, day: string): number =>
    committed.get(
      keyOf(subjectId, day),
      () => (read.get(subjectId, day) as { tokens: number } | undefined)?.tokens ?? 0,
    );
  const writeQueued = (): void => {
    if (writeScheduled) clearImmediate(writeScheduled);
    writeScheduled = undefined;
    if (queued.size === 0) return;
    const charges = [...queued.values()];
    try {
      inTransaction(database, () => {
        for (const { subjectId, day, tokens } of charges) add.run(subjectId, day, tokens);
      });
      queued.clear();
    } catch (error) {
      options.onWriteError?.(error);
      return;
    }
    for (const { subjectId, day, tokens } of charges)
      committed.update(keyOf(subjectId, day), (before) => before + tokens);
  };

  return {
    tokensPerDay: options.tokensPerDay,
    tokensPerGroupPerDay: options.tokensPerGroupPerDay,
    check(subjectId, now) {
      const limit = limitOf(subjectId);
      const day = dayOf(now);
      const spent = committedSpend(subjectId, day) + (queued.get(keyOf(subjectId, day))?.tokens ?? 0);
      return { allowed: spent < limit, spent, limit, resetsAt: nextDayStart(now) };
    },
    charge(subjectId, tokens, now) {
      if (limitOf(subjectId) === Number.POSITIVE_INFINITY) return;
      const day = dayOf(now);
      if (day !== prunedDay) {
        prune.run(dayOf(now - KEPT_DAYS * DAY_MS));
        committed.clear();
        prunedDay = day;
      }
      if (tokens <= 0) return;
      const key = keyOf(subjectId, day);
      const charge = queued.get(key);
      if (charge) charge.tokens += Math.round(tokens);
      else queued.set(key, { subjectId, day, tokens: Math.round(tokens) });
      writeScheduled ??= setImmediate(writeQueued);
    },
    forget(userId) {
      writeQueued();
      for (const [key, charge] of queued) if (charge.subjectId === userId) queued.delete(key);
      committed.clear();
      return Number(remove.run(userId).changes);
    },
    close() {
      writeQueued();
      if (database.isOpen) database.close();
    },
  };
}

/** The UTC day of `now` as YYYY-MM-DD; the last one is kept, as every charge and check asks. */
let lastDay = { number: Number.NaN, text: '' };
function dayOf(now: number): string {
  const number = Math.floor(now / DAY_MS);
  if (number !== lastDay.number)
    lastDay = { number, text: new Date(number * DAY_MS).toISOString().slice(0, 10) };
  return lastDay.text;
}

function nextDayStart(now: number): number {
  return Math.floor(now / DAY_MS) * DAY_MS + DAY_MS;
}

/** The reply to a person (or group) over their daily allowance, saying when it comes back. */
export function dailyBudgetReply(
  allowance: DailyAllowance,
  now: number,
  subject: BudgetSubject = 'person',
): string {
  const minutes = Math.max(1, Math.ceil((allowance.resetsAt - now) / 60_000));
  const wait = minutes >= 60 ? `${Math.floor(minutes / 60)} h ${minutes % 60} min` : `${minutes} min`;
  const who = subject === 'group' ? 'This group has' : 'You have';
  return `${who} used today's allowance of ${allowance.limit.toLocaleString('en-US')} tokens, so I cannot answer until it resets at 00:00 UTC (in ${wait}). Commands such as /help still work.`;
}
