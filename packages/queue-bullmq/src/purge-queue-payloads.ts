import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { decodeJobId } from './job-id-codec.ts';

/** Every state a job can rest in, `active` included so running matches are reported. */
const PURGED_STATES = [
  'waiting',
  'paused',
  'prioritized',
  'waiting-children',
  'delayed',
  'failed',
  'completed',
  'active',
] as const;

export interface QueuePurge {
  removed: number;
  running: number;
  /** Decoded ids of every matching job. */
  jobIds: string[];
}

/**
 * Deletes the jobs of one BullMQ queue whose data holds one of `needles` (JSON strings), then the
 * entries of the queue's event stream about them (a `failed` event repeats the failure reason,
 * which may quote the payload). A worker holds the lock of an active job, so it cannot be removed:
 * its stored data is blanked instead, so a retry or the record kept after it carries nothing.
 */
export async function purgeQueuePayloads(
  queue: Queue,
  client: Redis,
  needles: readonly string[],
): Promise<QueuePurge> {
  const result: QueuePurge = { removed: 0, running: 0, jobIds: [] };
  const encodedIds = new Set<string>();
  for (const job of await queue.getJobs([...PURGED_STATES])) {
    if (!job?.id || !needles.some((needle) => JSON.stringify(job.data).includes(needle))) continue;
    encodedIds.add(job.id);
    result.jobIds.push(decodeJobId(job.id));
    if (await job.isActive()) {
      await job.updateData({ forgotten: true });
      result.running += 1;
    } else {
      await job.remove();
      result.removed += 1;
    }
  }
  await purgeDebouncedFollowUps(queue, client, needles, result, encodedIds);
  if (encodedIds.size === 0) return result;
  const events = queue.keys.events ?? queue.toKey('events');
  const entries = await client.xrange(events, '-', '+');
  const stale = entries
    .filter(([, fields]) => {
      const index = fields.indexOf('jobId');
      return index >= 0 && index % 2 === 0 && encodedIds.has(fields[index + 1] ?? '');
    })
    .map(([id]) => id);
  if (stale.length > 0) await client.xdel(events, ...stale);
  return result;
}

/**
 * A debounced enqueue while its job runs (`keepLastIfActive`) is kept by BullMQ in a `dn:<key>`
 * hash (name, data, options, id) until the running job finishes, then added: one holding a needle
 * is deleted, so it never becomes a job.
 */
async function purgeDebouncedFollowUps(
  queue: Queue,
  client: Redis,
  needles: readonly string[],
  result: QueuePurge,
  encodedIds: Set<string>,
): Promise<void> {
  const pattern = `${queue.toKey('dn:')}*`;
  let cursor = '0';
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', pattern, 'COUNT', 100);
    cursor = next;
    for (const key of keys) {
      const [data, id] = await client.hmget(key, 'data', 'jid');
      if (!data || !needles.some((needle) => data.includes(needle))) continue;
      if ((await client.del(key)) === 0) continue;
      result.removed += 1;
      if (id) {
        encodedIds.add(id);
        result.jobIds.push(decodeJobId(id));
      }
    }
  } while (cursor !== '0');
}
