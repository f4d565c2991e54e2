import type { DatabaseSync } from 'node:sqlite';
import { NexusError } from '@nexus/protocol';
import { CommittedCache } from '@nexus/sqlite-kit';
import { isValidTimeZone } from './zoned-time.ts';

/** Each person's time zone, as they set it with `/timezone`; everyone else has the default. */
export interface TimeZoneStore {
  /** The person's zone, or the default zone. */
  zoneOf(userId: string): string;
  /** Undefined when the person never set one. */
  storedZoneOf(userId: string): string | undefined;
  set(userId: string, zone: string): void;
  /** Deletes the person's zone (they asked to be forgotten). */
  forget(userId: string): void;
  readonly defaultZone: string;
}

export const TIME_ZONES_MIGRATION = `
  CREATE TABLE time_zones (
    user_id TEXT PRIMARY KEY,
    time_zone TEXT NOT NULL,
    updated_at INTEGER NOT NULL
  ) STRICT;`;

export function createTimeZoneStore(options: {
  database: DatabaseSync;
  defaultZone: string;
  now: () => number;
}): TimeZoneStore {
  if (!isValidTimeZone(options.defaultZone)) {
    throw new NexusError({ code: 'invalid_config', message: `Unknown time zone '${options.defaultZone}'.` });
  }
  const select = options.database.prepare('SELECT time_zone FROM time_zones WHERE user_id = ?');
  const upsert = options.database.prepare(
    `INSERT INTO time_zones (user_id, time_zone, updated_at) VALUES (?, ?, ?)
     ON CONFLICT (user_id) DO UPDATE SET time_zone = excluded.time_zone, updated_at = excluded.updated_at`,
  );
  const remove = options.database.prepare('DELETE FROM time_zones WHERE user_id = ?');
  // Zones read lately (null: none set), as every turn asks: they change only here, or through
  // another connection, whose commit empties the copy.
  const zones = new CommittedCache<string | null>(options.database);
  const storedZoneOf = (userId: string): string | undefined =>
    zones.get(userId, () => (select.get(userId) as { time_zone: string } | undefined)?.time_zone ?? null) ??
    undefined;
  return {
    defaultZone: options.defaultZone,
    storedZoneOf,
    zoneOf: (userId) => storedZoneOf(userId) ?? options.defaultZone,
    set(userId, zone) {
      if (!isValidTimeZone(zone)) {
        throw new NexusError({ code: 'invalid_intent', message: `Unknown time zone '${zone}'.` });
      }
      // Stored as Intl names it (`europe/lisbon` → `Europe/Lisbon`).
      const named = new Intl.DateTimeFormat('en-GB', { timeZone: zone }).resolvedOptions().timeZone;
      upsert.run(userId, named, options.now());
      zones.set(userId, named);
    },
    forget(userId) {
      remove.run(userId);
      zones.delete(userId);
    },
  };
}
