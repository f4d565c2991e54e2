/** A counting semaphore with FIFO waiters, so turns start in the order they asked for a slot. */
export interface Semaphore {
  acquire(): Promise<void>;
  release(): void;
  /** Callers waiting for a permit now. */
  readonly waiting: number;
}

export function createSemaphore(permits: number): Semaphore {
  let available = Math.max(1, Math.floor(permits));
  // At most one waiter per conversation lane, so a plain array is small enough to shift.
  const waiters: (() => void)[] = [];
  return {
    acquire() {
      if (available > 0) {
        available -= 1;
        return Promise.resolve();
      }
      return new Promise<void>((resolve) => {
        waiters.push(resolve);
      });
    },
    release() {
      const next = waiters.shift();
      if (next) next();
      else available += 1;
    },
    get waiting() {
      return waiters.length;
    },
  };
}
