import type { DatabaseSync } from 'node:sqlite';

/**
 * Schema step of the session store: when each person was last active, on any channel and in any
 * conversation (direct or group). Filled from the turns already stored, so an upgraded store knows
 * who has been away.
 */
export const PERSON_ACTIVITY_MIGRATION = `CREATE TABLE person_activity (
     user_id TEXT PRIMARY KEY,
     last_active_at INTEGER NOT NULL
   ) WITHOUT ROWID;
   INSERT INTO person_activity (user_id, last_active_at)
     SELECT user_id, MAX(created_at) FROM turns GROUP BY user_id;`;

export interface SqlitePersonActivity {
  /** Records `at` as the person's latest activity; returns the one before (undefined: none). */
  mark(userId: string, at: number): number | undefined;
  forget(userId: string): void;
}

export function createSqlitePersonActivity(database: DatabaseSync): SqlitePersonActivity {
  const select = database.prepare('SELECT last_active_at FROM person_activity WHERE user_id = ?');
  // A replayed or late turn never moves the record back in time.
  const upsert = database.prepare(
    `INSERT INTO person_activity (user_id, last_active_at) VALUES (?, ?)
       ON CONFLICT (user_id) DO UPDATE SET last_active_at = MAX(last_active_at, excluded.last_active_at)`,
  );
  const remove = database.prepare('DELETE FROM person_activity WHERE user_id = ?');
  return {
    mark(userId, at) {
      const row = select.get(userId) as { last_active_at: number } | undefined;
      upsert.run(userId, at);
      return row?.last_active_at;
    },
    forget(userId) {
      remove.run(userId);
    },
  };
}
