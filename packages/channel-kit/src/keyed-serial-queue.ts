import { QueueFullError } from './queue-full-error.ts';

export interface KeyedSerialQueueOptions {
  /** Tasks allowed to wait per key behind the running one. Default: unbounded. */
  maxQueued?: number;
}

interface Lane {
  tail: Promise<void>;
  /** Tasks of this key not yet settled, the running one included. */
  pending: number;
}

/**
 * Runs tasks one at a time per key (a chat, a channel) and different keys concurrently, so a
 * conversation sees its messages in order while other conversations are not held up.
 */
export class KeyedSerialQueue {
  readonly #maxQueued: number;
  readonly #lanes = new Map<string, Lane>();
  #size = 0;

  constructor(options: KeyedSerialQueueOptions = {}) {
    const maxQueued = options.maxQueued ?? Number.POSITIVE_INFINITY;
    if (!(maxQueued >= 0)) throw new RangeError(`KeyedSerialQueue: maxQueued must be >= 0, got ${maxQueued}`);
    this.#maxQueued = maxQueued;
  }

  /**
   * Resolves or rejects with the task's own outcome. A failing task does not stop the lane.
   * Rejects with QueueFullError, without running the task, when the lane is full.
   */
  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    let lane = this.#lanes.get(key);
    if (lane && lane.pending - 1 >= this.#maxQueued) {
      return Promise.reject(new QueueFullError({ key, maxQueued: this.#maxQueued }));
    }
    if (!lane) {
      lane = { tail: Promise.resolve(), pending: 0 };
      this.#lanes.set(key, lane);
    }
    const current = lane;
    current.pending += 1;
    this.#size += 1;
    const result = current.tail.then(() => task());
    current.tail = result.then(
      () => this.#settle(key, current),
      () => this.#settle(key, current),
    );
    return result;
  }

  /** Tasks accepted and not yet settled, across all keys. */
  get size(): number {
    return this.#size;
  }

  #settle(key: string, lane: Lane): void {
    lane.pending -= 1;
    this.#size -= 1;
    if (lane.pending === 0 && this.#lanes.get(key) === lane) this.#lanes.delete(key);
  }
}
