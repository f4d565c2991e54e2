import type { JobQueue } from '@nexus/protocol';

/**
 * Conversations kept at most per queue; past it the oldest are forgotten (a forgotten one only
 * enqueues again, as without the memo).
 */
const MAX_CONVERSATIONS = 10_000;

interface Scheduled {
  /** The scheduling turn's arrival: no later than its stored `createdAt`, which the worker reads. */
  turnAt: number;
  idleMs: number;
  jobId: string;
}

/**
 * Per queue, the summary job this process last scheduled for each conversation, so later turns
 * within `idleMs` of it need not move it (the upsert rewrote the job's row and its place in the
 * ready index every turn, ~30 µs of main thread; see `packages/queue-sqlite/bench`).
 *
 * Why skipping loses no turn: the debounced enqueue set the key's waiting job to run no earlier
 * than `idleMs` after it returned, or, the key's job being already running, added one that does;
 * a job created after the turn was stored reads the history after it. The worker summarises only
 * when the newest turn it reads is `idleMs` old, else it schedules itself again for then; a job
 * that summarises therefore runs at or after `turnAt + idleMs`, past any skipped turn's check
 * (below), so that turn was stored before the job read the history, and is in what it summarises
 * or makes it reschedule.
 */
let memos = new WeakMap<JobQueue, Map<string, Scheduled>>();

/** The job a turn at `now` can rely on instead of enqueueing, or undefined. */
export function scheduledSummaryJob(
  queue: JobQueue,
  key: string,
  idleMs: number,
  now: number,
): string | undefined {
  const scheduled = memos.get(queue)?.get(key);
  if (!scheduled || scheduled.idleMs !== idleMs || now >= scheduled.turnAt + idleMs) return undefined;
  return scheduled.jobId;
}

export function rememberScheduledSummary(queue: JobQueue, key: string, scheduled: Scheduled): void {
  let memo = memos.get(queue);
  if (!memo) {
    memo = new Map();
    memos.set(queue, memo);
  }
  // Re-inserted so the map stays in scheduling order and the oldest go first.
  memo.delete(key);
  memo.set(key, scheduled);
  for (const oldest of memo.keys()) {
    if (memo.size <= MAX_CONVERSATIONS) break;
    memo.delete(oldest);
  }
}

/**
 * Forgets every conversation's scheduled job, of every queue (the purging one may be a wrapper of
 * the scheduling one): a purge may have deleted the waiting job the memo relies on, so the next
 * turn of each conversation enqueues again. Called by `/forget-me`'s job eraser, and by the
 * gateway's session store when another connection committed to it (`nexus users forget` in
 * another process deletes the person's turns there as well as their jobs).
 */
export function forgetScheduledSummaries(): void {
  memos = new WeakMap();
}
