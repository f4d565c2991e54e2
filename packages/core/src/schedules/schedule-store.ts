import type { DatabaseSync } from 'node:sqlite';
import type { ConversationRef } from '@nexus/protocol';
import { openSqliteDatabase } from '@nexus/sqlite-kit';
import {
  createTimeZoneStore,
  TIME_ZONES_MIGRATION,
  type TimeZoneStore,
} from '../time-zones/time-zone-store.ts';

/** A reminder (one-off) or a recurring scheduled message, with where it goes. */
export interface Schedule {
  id: number;
  userId: string;
  /** The display name of who set it, when the channel gave one: a group's reminder says who set it. */
  setByName?: string;
  conversation: ConversationRef;
  text: string;
  /** Set for recurring schedules: a five-field cron expression read in `timeZone`. */
  cron?: string;
  timeZone: string;
  /** Epoch ms of the next firing; undefined once finished or cancelled. */
  nextRunAt?: number;
  firedCount: number;
  createdAt: number;
}

export interface NewSchedule {
  userId: string;
  setByName?: string;
  conversation: ConversationRef;
  text: string;
  cron?: string;
  timeZone: string;
  nextRunAt: number;
}

/** Schedules and time zones in `schedules.sqlite`. */
export interface ScheduleStore {
  add(schedule: NewSchedule): Schedule;
  get(id: number): Schedule | undefined;
  /** Still to fire, soonest first. */
  active(filter?: { userId?: string; conversationKey?: string }): Schedule[];
  /** Records the firing due at `dueAt` and sets the next one (undefined: finished). False if it was already recorded. */
  advance(id: number, dueAt: number, nextRunAt: number | undefined): boolean;
  cancel(id: number): boolean;
  /** Cancels every active schedule of the person; returns how many. */
  cancelAllOf(userId: string): number;
  /**
   * Deletes every schedule of the person (a reminder's text is what they asked to be told) and
   * their time zone, then cuts the WAL so the rows leave the disk (`/forget-me`). Returns the
   * schedules deleted.
   */
  forget(userId: string): number;
  timeZones: TimeZoneStore;
  close(): void;
}

const MIGRATIONS = [
  `CREATE TABLE schedules (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id TEXT NOT NULL,
    conversation TEXT NOT NULL,
    conversation_key TEXT NOT NULL,
    text TEXT NOT NULL,
    cron TEXT,
    time_zone TEXT NOT NULL,
    next_run_at INTEGER,
    fired_count INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    cancelled_at INTEGER
  ) STRICT;
  CREATE INDEX schedules_active ON schedules (user_id, next_run_at) WHERE next_run_at IS NOT NULL;`,
  TIME_ZONES_MIGRATION,
  'ALTER TABLE schedules ADD COLUMN set_by_name TEXT',
  'CREATE INDEX schedules_active_in ON schedules (conversation_key, next_run_at) WHERE next_run_at IS NOT NULL',
];

interface Row {
  id: number;
  user_id: string;
  set_by_name: string | null;
  conversation: string;
  text: string;
  cron: string | null;
  time_zone: string;
  next_run_at: number | null;
  fired_count: number;
  created_at: number;
}

function fromRow(row: Row): Schedule {
  return {
    id: row.id,
    userId: row.user_id,
    ...(row.set_by_name === null ? {} : { setByName: row.set_by_name }),
    conversation: JSON.parse(row.conversation) as ConversationRef,
    text: row.text,
    ...(row.cron ? { cron: row.cron } : {}),
    timeZone: row.time_zone,
    ...(row.next_run_at === null ? {} : { nextRunAt: row.next_run_at }),
    firedCount: row.fired_count,
    createdAt: row.created_at,
  };
}

export function createSqliteScheduleStore(options: {
  path: string;
  defaultTimeZone: string;
  now: () => number;
}): ScheduleStore {
  const database: DatabaseSync = openSqliteDatabase({
    path: options.path,
    migrations: MIGRATIONS,
    storeName: 'schedule store',
  });
  const insert = database.prepare(
    `INSERT INTO schedules (user_id, set_by_name, conversation, conversation_key, text, cron, time_zone, next_run_at, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
  );
  const select = database.prepare('SELECT * FROM schedules WHERE id = ?');
  const advance = database.prepare(
    `UPDATE schedules SET next_run_at = ?, fired_count = fired_count + 1
     WHERE id = ? AND next_run_at = ? AND cancelled_at IS NULL`,
  );
  const cancel = database.prepare(
    'UPDATE schedules SET next_run_at = NULL, cancelled_at = ? WHERE id = ? AND next_run_at IS NOT NULL',
  );
  const cancelAll = database.prepare(
    'UPDATE schedules SET next_run_at = NULL, cancelled_at = ? WHERE user_id = ? AND next_run_at IS NOT NULL',
  );
  const deleteAll = database.prepare('DELETE FROM schedules WHERE user_id = ?');
  const timeZones = createTimeZoneStore({ database, defaultZone: options.defaultTimeZone, now: options.now });
  return {
    add(schedule) {
      const { conversation } = schedule;
      const row = insert.get(
        schedule.userId,
        schedule.setByName ?? null,
        JSON.stringify(conversation),
        `${conversation.channel}:${conversation.conversationId}`,
        schedule.text,
        schedule.cron ?? null,
        schedule.timeZone,
        schedule.nextRunAt,
        options.now(),
      ) as unknown as Row;
      return fromRow(row);
    },
    get(id) {
      const row = select.get(id) as Row | undefined;
      return row ? fromRow(row) : undefined;
    },
    active(filter = {}) {
      const clauses = ['next_run_at IS NOT NULL'];
      const values: string[] = [];
      if (filter.userId) {
        clauses.push('user_id = ?');
        values.push(filter.userId);
      }
      if (filter.conversationKey) {
        clauses.push('conversation_key = ?');
        values.push(filter.conversationKey);
      }
      const rows = database
        .prepare(`SELECT * FROM schedules WHERE ${clauses.join(' AND ')} ORDER BY next_run_at, id`)
        .all(...values) as unknown as Row[];
      return rows.map(fromRow);
    },
    advance: (id, dueAt, nextRunAt) => advance.run(nextRunAt ?? null, id, dueAt).changes === 1,
    cancel: (id) => cancel.run(options.now(), id).changes === 1,
    cancelAllOf: (userId) => Number(cancelAll.run(options.now(), userId).changes),
    forget(userId) {
      const deleted = Number(deleteAll.run(userId).changes);
      timeZones.forget(userId);
      database.exec('PRAGMA wal_checkpoint(TRUNCATE)');
      return deleted;
    },
    timeZones,
    close: () => database.close(),
  };
}
