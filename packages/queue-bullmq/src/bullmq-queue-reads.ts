import type { JobCounts, JobState, ParkedJob } from '@nexus/protocol';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { decodeJobId } from './job-id-codec.ts';
import { purgeQueuePayloads } from './purge-queue-payloads.ts';

/** The queue's BullMQ queues, one per job name, and the job names recorded in Redis. */
export interface QueueDirectory {
  queueFor(name: string): Queue;
  /** `[name]`, or every name any process enqueued or processed when undefined (sorted). */
  namesOf(name: string | undefined): Promise<string[]>;
}

/** Parked (BullMQ: failed) jobs of one name or all, newest first, at most `limit`. */
export async function listParked(
  directory: QueueDirectory,
  name: string | undefined,
  limit: number,
): Promise<ParkedJob[]> {
  const parked: ParkedJob[] = [];
  for (const jobName of await directory.namesOf(name)) {
    for (const job of await directory.queueFor(jobName).getFailed(0, limit - 1)) {
      parked.push({
        id: decodeJobId(job.id ?? ''),
        name: jobName,
        payload: job.data,
        attempts: job.attemptsMade,
        reason: job.failedReason ?? '',
        failedAt: job.finishedOn ?? job.processedOn ?? job.timestamp,
      });
    }
  }
  return parked.sort((left, right) => right.failedAt - left.failedAt).slice(0, limit);
}

/** Runs a parked job again from its first attempt; false when no parked job has that id. */
export async function retryParkedJob(
  directory: QueueDirectory,
  name: string | undefined,
  encodedId: string,
): Promise<{ retried: boolean }> {
  let retried = false;
  for (const jobName of await directory.namesOf(name)) {
    const job = await directory.queueFor(jobName).getJob(encodedId);
    if (!job || !(await job.isFailed())) continue;
    await job.retry('failed', { resetAttemptsMade: true });
    retried = true;
  }
  return { retried };
}

/** Jobs per state as the port counts them (BullMQ's paused and prioritized jobs are waiting). */
export async function countJobs(directory: QueueDirectory, name: string | undefined): Promise<JobCounts> {
  const total: JobCounts = { waiting: 0, active: 0, delayed: 0, parked: 0, completed: 0 };
  for (const jobName of await directory.namesOf(name)) {
    const counts = await directory
      .queueFor(jobName)
      .getJobCounts('waiting', 'paused', 'prioritized', 'active', 'delayed', 'failed', 'completed');
    total.waiting += (counts.waiting ?? 0) + (counts.paused ?? 0) + (counts.prioritized ?? 0);
    total.active += counts.active ?? 0;
    total.delayed += counts.delayed ?? 0;
    total.parked += counts.failed ?? 0;
    total.completed += counts.completed ?? 0;
  }
  return total;
}

/** Removes every job of every name whose payload holds one of `needles` (JSON-encoded values). */
export async function purgePayloadsOfAll(
  directory: QueueDirectory,
  commands: Redis,
  needles: string[],
): Promise<{ removed: number; jobIds: string[]; running: number }> {
  const result = { removed: 0, jobIds: [] as string[], running: 0 };
  for (const name of await directory.namesOf(undefined)) {
    const purged = await purgeQueuePayloads(directory.queueFor(name), commands, needles);
    result.removed += purged.removed;
    result.running += purged.running;
    result.jobIds.push(...purged.jobIds);
  }
  return result;
}

/** BullMQ's states as the port names them; a key gone from Redis is `missing`. */
export function toJobState(state: string): JobState {
  if (state === 'active' || state === 'delayed' || state === 'completed') return state;
  if (state === 'failed') return 'parked';
  if (state === 'unknown') return 'missing';
  return 'waiting';
}
