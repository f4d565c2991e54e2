import { NexusError } from '@nexus/protocol';
import type { Job, Queue } from 'bullmq';
import type { Redis } from 'ioredis';

/**
 * Adds in a row that may find the key's job due but not taken before the enqueue fails
 * (retryable). Each such round removes that job, so the next add finds no job for the key (a
 * fresh one is added), a delayed one (replaced), or a running one (the payload kept as its
 * follow-up); another round needs another job of the key to have become due or been put back in
 * the wait list meanwhile.
 */
const MAX_ADDS = 5;

/**
 * Adds a debounced job (`deduplication: { id: debounceKey, replace: true, keepLastIfActive:
 * true }`) so that its payload is never dropped. BullMQ replaces a delayed job of the key and
 * keeps the payload aside (`dn:<key>`) for a running one, but an add while the key's job is in the
 * wait list (due, not yet taken by a worker) only returns that job's id: that job would run with
 * the older payload, and nothing with this one. So after an add answered with another job's id,
 * the payload's fate is read (atomically: kept aside under this id, or already added from there by
 * the running job's end); when it was dropped, the waiting job is removed through BullMQ, which
 * refuses to remove a job a worker has locked (taken), and the add is made again. A job taken
 * between the add and the removal is running by the next add, which keeps the payload as its
 * follow-up; one that even finished is only a completed record, whose removal loses nothing. Of
 * two gateways racing, each returns once its payload is added or kept aside, and the later write
 * wins, as with two plain enqueues.
 */
export async function addDebounced(options: {
  queue: Queue;
  client: Redis;
  encodedId: string;
  debounceKey: string;
  add: () => Promise<Job>;
}): Promise<{ encodedId: string; deduplicated: boolean }> {
  const { queue, client, encodedId, debounceKey } = options;
  for (let round = 1; ; round += 1) {
    const added = await options.add();
    if (added.id === undefined || added.id === encodedId) return { encodedId, deduplicated: false };
    const holder = added.id;
    const replies = await client
      .multi()
      .hget(queue.toKey(`dn:${debounceKey}`), 'jid')
      .exists(queue.toKey(encodedId))
      .exec();
    const [keptAside, addedSince] = (replies ?? []).map(([error, value]) => {
      if (error) throw error;
      return value;
    });
    // Kept as the running job's follow-up (the running job's id answers, as before).
    if (keptAside === encodedId) return { encodedId: holder, deduplicated: true };
    // Kept aside and, the running job having finished, already added under this id.
    if (addedSince === 1) return { encodedId, deduplicated: false };
    if (round === MAX_ADDS) {
      throw new NexusError({
        code: 'internal',
        retryable: true,
        message: `A debounced job of key ${debounceKey} kept being due and not taken over ${MAX_ADDS} adds.`,
      });
    }
    // Dropped: `holder` is due and not taken. Its payload is older than this one, which replaces
    // it as for a delayed job. A result of 0 means a worker holds it now: the next add keeps
    // the payload as its follow-up.
    await queue.remove(holder);
  }
}
