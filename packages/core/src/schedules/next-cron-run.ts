import { createRequire } from 'node:module';
import { NexusError } from '@nexus/protocol';
import type CronParser from 'cron-parser';

// cron-parser (with luxon under it) loads on the first cron schedule, not with core: most
// processes never compute a cron time. A synchronous require keeps `nextCronRun` synchronous.
const require = createRequire(import.meta.url);
let cronParser: typeof CronParser | undefined;

/** The first time after `after` that a five-field cron expression names, read in `zone`. */
export function nextCronRun(cron: string, zone: string, after: number): number {
  try {
    cronParser ??= require('cron-parser') as typeof CronParser;
    return cronParser
      .parseExpression(cron, { currentDate: new Date(after), tz: zone })
      .next()
      .getTime();
  } catch (error) {
    throw new NexusError({
      code: 'invalid_intent',
      message: `Not a cron expression: '${cron}'.`,
      cause: error,
    });
  }
}

/** Five fields only (minute hour day month weekday): seconds would let a schedule fire every second. */
export function isFiveFieldCron(cron: string): boolean {
  return cron.trim().split(/\s+/).length === 5;
}
