import { createSemaphore } from './semaphore.ts';

/**
 * One queued unit of work. It runs while holding a global slot and may hand back `drain`, work
 * that must finish before the lane's next task but not hold a slot (a slow channel delivering
 * the reply must not keep other conversations waiting).
 */
export type LaneTask = () => Promise<{ drain?: Promise<void> } | undefined>;

export interface ConversationLanes {
  /**
   * Queues a task on the lane of `key`; false when that lane already holds `maxQueuedPerLane`,
   * unless `overLimit` (work already promised durably, e.g. an inbox replay, must not be refused).
   */
  enqueue(key: string, task: LaneTask, options?: { overLimit?: boolean }): boolean;
  /** Whether `enqueue` would take one more task on this lane now. */
  hasRoom(key: string): boolean;
  readonly activeCount: number;
  readonly queuedCount: number;
  /** Lanes whose next task waits for a global slot (all `maxConcurrent` taken). */
  readonly waitingForSlotCount: number;
  readonly laneCount: number;
  /** Resolves once no lane holds work (running, queued or draining). */
  whenIdle(): Promise<void>;
}

interface Lane {
  queue: LaneTask[];
}

/**
 * FIFO per conversation, different conversations in parallel under one global limit. A lane
 * exists only while it has work, so idle conversations cost nothing.
 */
export function createConversationLanes(options: {
  maxConcurrent: number;
  maxQueuedPerLane: number;
}): ConversationLanes {
  const semaphore = createSemaphore(options.maxConcurrent);
  const lanes = new Map<string, Lane>();
  let active = 0;
  let queued = 0;
  let idleWaiters: (() => void)[] = [];

  function settleIdle(): void {
    if (lanes.size > 0 || idleWaiters.length === 0) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  async function runLane(key: string, lane: Lane): Promise<void> {
    while (lane.queue.length > 0) {
      await semaphore.acquire();
      const task = lane.queue.shift() as LaneTask;
      queued -= 1;
      active += 1;
      let drain: Promise<void> | undefined;
      try {
        drain = (await task())?.drain;
      } catch {
        // Tasks report their own failures; a throw here must not stop the lane.
      } finally {
        active -= 1;
        semaphore.release();
      }
      if (drain) await drain.catch(() => {});
    }
    lanes.delete(key);
    settleIdle();
  }

  return {
    enqueue(key, task, enqueueOptions) {
      let lane = lanes.get(key);
      if (lane && lane.queue.length >= options.maxQueuedPerLane && !enqueueOptions?.overLimit) return false;
      queued += 1;
      if (lane) {
        lane.queue.push(task);
        return true;
      }
      lane = { queue: [task] };
      lanes.set(key, lane);
      void runLane(key, lane);
      return true;
    },
    hasRoom(key) {
      return (lanes.get(key)?.queue.length ?? 0) < options.maxQueuedPerLane;
    },
    get activeCount() {
      return active;
    },
    get queuedCount() {
      return queued;
    },
    get waitingForSlotCount() {
      return semaphore.waiting;
    },
    get laneCount() {
      return lanes.size;
    },
    whenIdle() {
      if (lanes.size === 0) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
  };
}
