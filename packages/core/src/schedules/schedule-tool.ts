import { conversationRefOf, type Intent, type Logger } from '@nexus/protocol';
import { type Tool, tool, zodSchema } from 'ai';
import { z } from 'zod';
import { formatZonedTime, parseZonedTime } from '../time-zones/zoned-time.ts';
import { ScheduleRefused, type Scheduler } from './scheduler.ts';

const scheduleInput = z.object({
  text: z.string().min(1).max(2000).describe('What to say when it is due, written to the person.'),
  at: z
    .string()
    .optional()
    .describe(
      'One-off: local date and time in the person’s time zone, ISO 8601 without offset, e.g. 2026-11-26T09:00.',
    ),
  cron: z
    .string()
    .optional()
    .describe(
      'Recurring: five-field cron expression in the person’s time zone, e.g. "0 9 * * 1" for Mondays at 9:00.',
    ),
});
// Built once: the SDK converts a schema to JSON Schema on first read and caches it on the object.
const scheduleInputSchema = zodSchema(scheduleInput);

export interface ScheduleToolOptions {
  scheduler: Scheduler;
  intent: Intent;
  timeZone: string;
  now: () => number;
  logger: Logger;
  onCall?: (outcome: 'ok' | 'refused' | 'error') => void;
}

/**
 * `schedule`: a reminder or a recurring message to the person, in this conversation. The model
 * resolves "tomorrow at 9" against the local time given in the description; the person's zone
 * turns it into an instant.
 */
export function createScheduleTool(options: ScheduleToolOptions): Tool {
  const { scheduler, intent, timeZone } = options;
  const nowText = formatZonedTime(options.now(), timeZone);
  return tool({
    description: `Sets a reminder or a recurring message for the person, sent in this conversation when due. Now it is ${nowText} in their time zone (${timeZone}). Give either "at" (one-off) or "cron" (recurring).`,
    inputSchema: scheduleInputSchema,
    execute: async ({ text, at, cron }) => {
      const log = { tool: 'schedule', conversationId: intent.conversation.id, userId: intent.userId };
      try {
        const when = at === undefined ? undefined : parseZonedTime(at, timeZone);
        if (at !== undefined && when === undefined)
          throw new ScheduleRefused(`Not a date and time: '${at}'.`);
        if ((when === undefined) === (cron === undefined))
          throw new ScheduleRefused('Give exactly one of "at" or "cron".');
        const schedule = await scheduler.create({
          userId: intent.userId,
          ...(intent.sender.displayName ? { setByName: intent.sender.displayName } : {}),
          conversation: conversationRefOf(intent),
          text,
          timeZone,
          ...(when !== undefined ? { at: when } : {}),
          ...(cron !== undefined ? { cron } : {}),
        });
        options.logger.info({ ...log, scheduleId: schedule.id, outcome: 'ok' }, 'tool call');
        options.onCall?.('ok');
        const next = formatZonedTime(schedule.nextRunAt ?? 0, timeZone);
        return cron
          ? `Scheduled: every "${cron}" (${timeZone}), first on ${next}.`
          : `Reminder set for ${next} (${timeZone}).`;
      } catch (error) {
        const refused =
          error instanceof ScheduleRefused || (error as { code?: string }).code === 'invalid_intent';
        options.logger.info({ ...log, outcome: refused ? 'refused' : 'error', err: error }, 'tool call');
        options.onCall?.(refused ? 'refused' : 'error');
        return `Not scheduled: ${error instanceof Error ? error.message : String(error)}`;
      }
    },
  });
}
