import type { PersonEraser, Schedules } from '@nexus/core';

/**
 * `/forget-me` and `nexus users forget` delete the person's reminders and schedules with their
 * time zone: a reminder holds what they asked to be told, and must never reach them afterwards.
 * A firing already queued finds no schedule and does nothing.
 */
export function remindersEraser(schedules: Schedules): PersonEraser {
  return {
    kind: 'reminders',
    async erase(target) {
      let deleted = 0;
      for (const userId of target.userIds) deleted += schedules.store.forget(userId);
      return deleted;
    },
  };
}
