import { join } from 'node:path';
import { createSqliteScheduleStore, type ScheduleStore } from '@nexus/core';
import type { GatewayConfig } from '../config/gateway-config.ts';
import { privateFilePath } from '../data-dir/private-path.ts';

/**
 * The reminders in `<dataDir>/schedules.sqlite`, for the owner's commands and the web Access
 * panel; SQLite's locking lets them and the running gateway have it open at once. A reminder
 * cancelled here never fires: its queued firing finds it no longer due.
 */
export function openScheduleStore(config: Pick<GatewayConfig, 'dataDir' | 'time'>): ScheduleStore {
  return createSqliteScheduleStore({
    path: privateFilePath(join(config.dataDir, 'schedules.sqlite')),
    defaultTimeZone: config.time.defaultZone,
    now: Date.now,
  });
}
