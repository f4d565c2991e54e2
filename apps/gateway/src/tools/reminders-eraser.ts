import type { PersonEraser, ScheduleStore } from '@nexus/core';

/**
 * `/forget-me` and `nexus users forget` delete the person's reminders and schedules with their
 * time zone: a reminder holds what they asked to be told, and must never reach them afterwards.
 * A firing already queued finds no schedule and does nothing.
 */
export function remindersEraser(store: Pick<ScheduleStore, 'forget'>): PersonEraser {
  return {
    kind: 'reminders',
    async erase(target) {
      let deleted = 0;
      for (const userId of target.userIds) deleted += store.forget(userId);
      return deleted;
    },
  };
}
