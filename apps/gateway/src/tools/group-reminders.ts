import type { Schedule, ScheduleStore } from '@nexus/core';

/**
 * The reminders the owner manages (`nexus reminders`, the web Access panel): those waiting in
 * groups and threads, or in one (`<channel>:<conversation id>`). A person's direct-chat reminders
 * are their own and never listed here.
 */
export function groupReminders(store: Pick<ScheduleStore, 'active'>, group?: string): Schedule[] {
  return store
    .active(group === undefined ? {} : { conversationKey: group })
    .filter((schedule) => schedule.conversation.kind !== 'direct');
}
