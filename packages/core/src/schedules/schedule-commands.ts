import type { Intent } from '@nexus/protocol';
import { displayNameAsText } from '../access/display-name-as-text.ts';
import type { ExtraCommands } from '../commands/extra-commands.ts';
import { formatZonedTime, isValidTimeZone } from '../time-zones/zoned-time.ts';
import type { Schedule, ScheduleStore } from './schedule-store.ts';
import type { Scheduler } from './scheduler.ts';

/**
 * `/reminders` lists the person's reminders, numbered, and `/reminders cancel <n>` cancels one.
 * In a group it lists every reminder set in the group, with who set each (everyone there sees
 * them when they fire anyway), and cancels one the sender set, or any when the platform says the
 * sender administers the group; the owner cancels any with `nexus reminders` or the web Access panel. `/timezone` shows the person's zone,
 * `/timezone Europe/Lisbon` sets it (checked with Intl).
 */
export function createScheduleCommands(options: {
  scheduler: Scheduler;
  store: ScheduleStore;
  now: () => number;
  /** Whether the sender administers the group, as the platform says (ChannelAdapter.isGroupAdmin). */
  isGroupAdmin?: (intent: Intent) => Promise<boolean>;
}): ExtraCommands {
  const { scheduler, store } = options;
  const listed = (intent: Parameters<ExtraCommands[string]>[0]['intent']): Schedule[] =>
    intent.conversation.kind === 'direct'
      ? scheduler.active({ userId: intent.userId })
      : scheduler.active({ conversationKey: `${intent.channel}:${intent.conversation.id}` });
  return {
    reminders: async ({ intent, argument }) => {
      const inGroup = intent.conversation.kind !== 'direct';
      const schedules = listed(intent);
      const cancel = /^cancel\s+#?(\d+)$/i.exec(argument);
      if (cancel) {
        const chosen = schedules[Number(cancel[1]) - 1];
        if (!chosen) return `There is no reminder ${cancel[1]}. Send /reminders to see the list.`;
        if (chosen.userId !== intent.userId && !(inGroup && (await options.isGroupAdmin?.(intent)))) {
          return `Only whoever set reminder ${cancel[1]} or a group admin can cancel it here; the assistant's owner can cancel any reminder of this group.`;
        }
        scheduler.cancel(chosen.id);
        return `Cancelled: ${chosen.text}`;
      }
      if (argument !== '')
        return 'Send /reminders to list your reminders, or /reminders cancel <n> to cancel one.';
      if (schedules.length === 0) return inGroup ? 'This group has no reminders.' : 'You have no reminders.';
      const zone = store.timeZones.zoneOf(intent.userId);
      const lines = schedules.map((schedule, index) => {
        const when = formatZonedTime(schedule.nextRunAt ?? 0, zone);
        const repeat = schedule.cron ? ` (repeats: ${schedule.cron})` : '';
        const setBy = inGroup ? ` (set by ${setterOf(schedule, intent.userId)})` : '';
        return `${index + 1}. ${when}${repeat}: ${schedule.text}${setBy}`;
      });
      return inGroup
        ? `Reminders in this group (${zone}):\n${lines.join('\n')}\n\nCancel one you set with /reminders cancel <n>.`
        : `Your reminders (${zone}):\n${lines.join('\n')}\n\nCancel one with /reminders cancel <n>.`;
    },
    timezone: async ({ intent, argument }) => {
      if (argument === '') {
        const stored = store.timeZones.storedZoneOf(intent.userId);
        return stored
          ? `Your time zone is ${stored}. Change it with /timezone <zone>, e.g. /timezone Europe/Lisbon.`
          : `I use ${store.timeZones.defaultZone} for you. Set your zone with /timezone <zone>, e.g. /timezone Europe/Lisbon.`;
      }
      if (!isValidTimeZone(argument)) {
        return `I do not know the time zone '${argument}'. Use a name like Europe/Lisbon or America/New_York.`;
      }
      store.timeZones.set(intent.userId, argument);
      const zone = store.timeZones.zoneOf(intent.userId);
      return `Your time zone is now ${zone}; it is ${formatZonedTime(options.now(), zone)} there.`;
    },
  };
}

function setterOf(schedule: Schedule, asking: string): string {
  if (schedule.userId === asking) return 'you';
  return schedule.setByName ? displayNameAsText(schedule.setByName) : schedule.userId;
}
