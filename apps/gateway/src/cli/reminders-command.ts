import type { ScheduleStore } from '@nexus/core';
import { groupReminders } from '../tools/group-reminders.ts';
import { type CommandOutput, formatTable } from './command-output.ts';

export const REMINDERS_USAGE = `Usage:
  nexus reminders list [--group CHANNEL:ID]   Reminders waiting in groups (or in one group), with who set each
  nexus reminders cancel ID                   Cancel one of them (a group reminder, whoever set it)
A person's own direct-chat reminders are theirs: they list and cancel them with /reminders.
`;

/** `nexus reminders list|cancel`, on the schedule store the running gateway also uses. */
export function remindersCommand(options: {
  args: string[];
  store: ScheduleStore;
  output: CommandOutput;
}): number {
  const { store, output } = options;
  const [action, ...rest] = options.args;
  if (action === 'list' && (rest.length === 0 || (rest.length === 2 && rest[0] === '--group'))) {
    const schedules = groupReminders(store, rest[1]);
    if (schedules.length === 0) {
      output.out(rest[1] ? `No reminders waiting in ${rest[1]}.\n` : 'No reminders waiting in any group.\n');
      return 0;
    }
    output.out(
      formatTable(
        ['ID', 'GROUP', 'SET BY', 'NEXT (UTC)', 'REPEATS', 'TEXT'],
        schedules.map((schedule) => [
          String(schedule.id),
          `${schedule.conversation.channel}:${schedule.conversation.conversationId}`,
          schedule.setByName ? `${oneLine(schedule.setByName)} (${schedule.userId})` : schedule.userId,
          new Date(schedule.nextRunAt ?? 0).toISOString().slice(0, 16).replace('T', ' '),
          schedule.cron ?? '',
          oneLine(schedule.text).slice(0, 60),
        ]),
      ),
    );
    output.out('\nCancel one with `nexus reminders cancel ID`.\n');
    return 0;
  }
  if (action === 'cancel' && rest.length === 1 && /^\d+$/u.test(rest[0] ?? '')) {
    const schedule = store.get(Number(rest[0]));
    if (!schedule || schedule.nextRunAt === undefined) {
      output.error(`No reminder ${rest[0]} is waiting; see them with \`nexus reminders list\`.\n`);
      return 1;
    }
    if (schedule.conversation.kind === 'direct') {
      output.error(
        `Reminder ${rest[0]} is in a direct chat: it is that person's own, and they cancel it with /reminders.\n`,
      );
      return 1;
    }
    store.cancel(schedule.id);
    output.out(
      `Cancelled reminder ${schedule.id} in ${schedule.conversation.channel}:${schedule.conversation.conversationId}: ${oneLine(schedule.text)}\n`,
    );
    return 0;
  }
  output.error(REMINDERS_USAGE);
  return 64;
}

/** Text someone typed, on one terminal line. */
function oneLine(text: string): string {
  return text.replace(/\p{Cc}+/gu, ' ');
}
