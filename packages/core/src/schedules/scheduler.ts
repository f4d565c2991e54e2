import {
  type ConversationRef,
  JobError,
  type JobProcessor,
  type JobQueue,
  type Logger,
  NexusError,
  type OutboundIntent,
  type OutboundResult,
} from '@nexus/protocol';
import { displayNameAsText } from '../access/display-name-as-text.ts';
import { formatZonedTime } from '../time-zones/zoned-time.ts';
import { isFiveFieldCron, nextCronRun } from './next-cron-run.ts';
import type { Schedule, ScheduleStore } from './schedule-store.ts';

export const SCHEDULE_JOB_NAME = 'schedule.fire';

export type ScheduledDeliveryOutcome = 'delivered' | 'late' | 'refused' | 'failed';

export interface SchedulerOptions {
  store: ScheduleStore;
  /** Durable delayed jobs: the embedded SQLite queue or BullMQ. */
  queue: JobQueue;
  /** Core's proactive path (`NexusCore.deliverOutbound`). */
  deliver: (outbound: OutboundIntent) => Promise<OutboundResult>;
  now: () => number;
  logger: Logger;
  /** A firing this much after its time says it is late. Default 1 minute. */
  lateAfterMs?: number;
  /** Active schedules one person may have. Default 20. */
  maxActivePerPerson?: number;
  /** Active schedules one group (or thread) may have, whoever set them. Default 10. */
  maxActivePerGroup?: number;
  /** Shortest gap between two firings of a recurring schedule. Default 15 minutes. */
  minIntervalMs?: number;
  onDelivery?: (event: { channel: string; outcome: ScheduledDeliveryOutcome }) => void;
}

export interface CreateScheduleInput {
  userId: string;
  /** Who set it, as the channel names them; a group's reminder says so when it fires. */
  setByName?: string;
  conversation: ConversationRef;
  text: string;
  timeZone: string;
  /** One-off: epoch ms. */
  at?: number;
  /** Recurring: five-field cron expression in `timeZone`. */
  cron?: string;
}

export interface Scheduler {
  /** Handles due jobs, and puts every active schedule's next firing in the queue (idempotent). */
  start(): Promise<void>;
  create(input: CreateScheduleInput): Promise<Schedule>;
  active(filter: { userId?: string; conversationKey?: string }): Schedule[];
  cancel(id: number): boolean;
  stop(): Promise<void>;
}

/** Thrown for a schedule the person asked for that cannot be made; the message says why. */
export class ScheduleRefused extends NexusError {
  constructor(message: string) {
    super({ code: 'invalid_intent', message });
    this.name = 'ScheduleRefused';
  }
}

/**
 * Reminders and recurring messages on the job queue: each firing is one delayed job whose id names
 * the schedule and the time, so enqueueing it again (every start does) adds nothing. A firing is
 * recorded in the store only if it is still the schedule's next one, so a cancelled or already
 * fired schedule never goes out again; a crash between delivering and recording it can repeat it
 * (at least once, like every job).
 */
export function createScheduler(options: SchedulerOptions): Scheduler {
  const { store, queue, logger, now } = options;
  const lateAfterMs = options.lateAfterMs ?? 60_000;
  const maxActive = options.maxActivePerPerson ?? 20;
  const maxActivePerGroup = options.maxActivePerGroup ?? 10;
  const minIntervalMs = options.minIntervalMs ?? 15 * 60_000;
  let processor: JobProcessor | undefined;

  const enqueue = (schedule: { id: number }, dueAt: number) =>
    queue.enqueue({
      name: SCHEDULE_JOB_NAME,
      payload: { scheduleId: schedule.id, dueAt },
      jobId: `schedule-${schedule.id}-${dueAt}`,
      delayMs: Math.max(0, dueAt - now()),
      attempts: 5,
      backoff: { type: 'exponential', delayMs: 5_000 },
    });

  async function fire(scheduleId: number, dueAt: number): Promise<void> {
    const schedule = store.get(scheduleId);
    if (!schedule || schedule.nextRunAt !== dueAt) return; // cancelled, or this firing is done
    const channel = schedule.conversation.channel;
    const lateBy = now() - dueAt;
    const late = lateBy > lateAfterMs;
    // In a group everyone sees it: it says who set it, so nobody mistakes it for the assistant's own.
    const setBy =
      schedule.conversation.kind === 'direct'
        ? ''
        : `\n\n(set by ${schedule.setByName ? displayNameAsText(schedule.setByName) : schedule.userId})`;
    const text = late
      ? `${schedule.text}${setBy}\n\n(late: this was due at ${formatZonedTime(dueAt, schedule.timeZone)} ${schedule.timeZone})`
      : `${schedule.text}${setBy}`;
    const result = await options.deliver({
      kind: 'reminder',
      id: `schedule-${schedule.id}-${dueAt}`,
      conversation: schedule.conversation,
      userId: schedule.userId,
      text,
      dueAt: new Date(dueAt).toISOString(),
    });
    const log = { scheduleId, conversationId: schedule.conversation.conversationId, channel, dueAt };
    if (result.status === 'failed') {
      options.onDelivery?.({ channel, outcome: 'failed' });
      logger.warn({ ...log, reason: result.message }, 'scheduled message not delivered');
      if (result.retryable) throw new JobError({ message: result.message });
    }
    if (result.status === 'refused') {
      options.onDelivery?.({ channel, outcome: 'refused' });
      logger.info({ ...log, reason: result.reason }, 'scheduled message refused; schedule cancelled');
      store.cancel(schedule.id);
      return;
    }
    if (result.status === 'delivered') {
      options.onDelivery?.({ channel, outcome: late ? 'late' : 'delivered' });
      logger.info({ ...log, lateMs: late ? lateBy : 0 }, 'scheduled message delivered');
    }
    // A recurring schedule missed while down fires once, late, then resumes from now.
    const next = schedule.cron
      ? nextCronRun(schedule.cron, schedule.timeZone, Math.max(now(), dueAt))
      : undefined;
    if (store.advance(schedule.id, dueAt, next) && next !== undefined) await enqueue(schedule, next);
  }

  return {
    async start() {
      processor ??= queue.process({
        name: SCHEDULE_JOB_NAME,
        handler: async (job) => {
          const { scheduleId, dueAt } = job.payload as { scheduleId: number; dueAt: number };
          await fire(scheduleId, dueAt);
        },
      });
      // A schedule stored just before a crash may have no job yet; ids make this a no-op otherwise.
      for (const schedule of store.active()) {
        if (schedule.nextRunAt !== undefined) await enqueue(schedule, schedule.nextRunAt);
      }
    },
    async create(input) {
      const text = input.text.trim();
      if (text === '') throw new ScheduleRefused('A reminder needs a text.');
      if (store.active({ userId: input.userId }).length >= maxActive) {
        throw new ScheduleRefused(
          `You already have ${maxActive} reminders; cancel one with /reminders cancel <n>.`,
        );
      }
      if (
        input.conversation.kind !== 'direct' &&
        store.active({ conversationKey: conversationKeyOf(input.conversation) }).length >= maxActivePerGroup
      ) {
        throw new ScheduleRefused(
          `This group already has ${maxActivePerGroup} reminders; see them with /reminders, and ask whoever set one (or the assistant's owner) to cancel it.`,
        );
      }
      let nextRunAt: number;
      if (input.cron !== undefined) {
        if (!isFiveFieldCron(input.cron)) throw new ScheduleRefused('Use a five-field cron expression.');
        nextRunAt = nextCronRun(input.cron, input.timeZone, now());
        const after = nextCronRun(input.cron, input.timeZone, nextRunAt);
        if (after - nextRunAt < minIntervalMs) {
          throw new ScheduleRefused(
            `A recurring message may fire at most every ${Math.round(minIntervalMs / 60_000)} minutes.`,
          );
        }
      } else if (input.at !== undefined) {
        if (input.at <= now()) throw new ScheduleRefused('That time has already passed.');
        nextRunAt = input.at;
      } else {
        throw new ScheduleRefused('Give a time or a cron expression.');
      }
      const schedule = store.add({
        userId: input.userId,
        ...(input.setByName ? { setByName: input.setByName } : {}),
        conversation: input.conversation,
        text: text.slice(0, 2000),
        ...(input.cron !== undefined ? { cron: input.cron } : {}),
        timeZone: input.timeZone,
        nextRunAt,
      });
      await enqueue(schedule, nextRunAt);
      return schedule;
    },
    active: (filter) => store.active(filter),
    cancel: (id) => store.cancel(id),
    async stop() {
      await processor?.stop({ timeoutMs: 2_000 });
      processor = undefined;
    },
  };
}

/** The key schedules are filed under per conversation: `<channel>:<conversation id>`. */
export function conversationKeyOf(conversation: Pick<ConversationRef, 'channel' | 'conversationId'>): string {
  return `${conversation.channel}:${conversation.conversationId}`;
}
