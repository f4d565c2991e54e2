import type { Intent, JobQueue, Logger, OutboundIntent, OutboundResult } from '@nexus/protocol';
import type { Tool } from 'ai';
import type { ExtraCommands } from '../commands/extra-commands.ts';
import { createScheduleCommands } from './schedule-commands.ts';
import { createSqliteScheduleStore, type ScheduleStore } from './schedule-store.ts';
import { createScheduleTool } from './schedule-tool.ts';
import { createScheduler, type ScheduledDeliveryOutcome, type Scheduler } from './scheduler.ts';

export interface Schedules {
  scheduler: Scheduler;
  store: ScheduleStore;
  /** `/reminders` and `/timezone`, for the access step. */
  commands: ExtraCommands;
  /** The `schedule` tool bound to the person speaking. */
  toolFor(intent: Intent): Tool;
  /** The person's zone (or the default), for "today" in prompts. */
  timeZoneOf(userId: string): string;
  /** Call once the channels are registered: due reminders (missed ones too) go out from here on. */
  start(): Promise<void>;
  close(): Promise<void>;
}

/** Reminders, recurring messages and time zones in `path`, fired through `queue`. */
export function createSchedules(options: {
  path: string;
  defaultTimeZone: string;
  queue: JobQueue;
  /** Core's proactive path; set once the core exists. */
  deliver: (outbound: OutboundIntent) => Promise<OutboundResult>;
  now: () => number;
  logger: Logger;
  /** Reminders one group may have waiting (NEXUS_GROUP_MAX_REMINDERS). Default 10. */
  maxActivePerGroup?: number;
  /** Whether a sender administers their group (the channel's `isGroupAdmin`); asked by `/reminders cancel`. */
  isGroupAdmin?: (intent: Intent) => Promise<boolean>;
  onDelivery?: (event: { channel: string; outcome: ScheduledDeliveryOutcome }) => void;
  onToolCall?: (outcome: 'ok' | 'refused' | 'error') => void;
}): Schedules {
  const store = createSqliteScheduleStore({
    path: options.path,
    defaultTimeZone: options.defaultTimeZone,
    now: options.now,
  });
  const scheduler = createScheduler({
    store,
    queue: options.queue,
    deliver: options.deliver,
    now: options.now,
    logger: options.logger,
    ...(options.maxActivePerGroup ? { maxActivePerGroup: options.maxActivePerGroup } : {}),
    ...(options.onDelivery ? { onDelivery: options.onDelivery } : {}),
  });
  return {
    scheduler,
    store,
    commands: createScheduleCommands({
      scheduler,
      store,
      now: options.now,
      ...(options.isGroupAdmin ? { isGroupAdmin: options.isGroupAdmin } : {}),
    }),
    toolFor: (intent) =>
      createScheduleTool({
        scheduler,
        intent,
        timeZone: store.timeZones.zoneOf(intent.userId),
        now: options.now,
        logger: options.logger,
        ...(options.onToolCall ? { onCall: options.onToolCall } : {}),
      }),
    timeZoneOf: (userId) => store.timeZones.zoneOf(userId),
    start: () => scheduler.start(),
    async close() {
      await scheduler.stop();
      store.close();
    },
  };
}
