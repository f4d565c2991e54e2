/** An unbounded FIFO of pushed messages with an awaitable, abortable `next()`. */
export interface MessageQueue<T> {
  push(message: T): void;
  /** The next message; rejects with the signal's reason when it aborts first. */
  next(abortSignal: AbortSignal): Promise<T>;
  /** Like `next`, but resolves `undefined` when nothing came within `timeoutMs`. */
  nextWithin(abortSignal: AbortSignal, timeoutMs: number): Promise<T | undefined>;
}

export function createMessageQueue<T>(): MessageQueue<T> {
  const buffered: T[] = [];
  let waiter: ((message: T) => void) | undefined;
  const queue: MessageQueue<T> = {
    push(message) {
      if (waiter) {
        const resolve = waiter;
        waiter = undefined;
        resolve(message);
      } else buffered.push(message);
    },
    next(abortSignal) {
      if (buffered.length > 0) return Promise.resolve(buffered.shift() as T);
      if (abortSignal.aborted) return Promise.reject(abortSignal.reason);
      return new Promise<T>((resolve, reject) => {
        const onAbort = () => {
          waiter = undefined;
          reject(abortSignal.reason);
        };
        abortSignal.addEventListener('abort', onAbort, { once: true });
        waiter = (message) => {
          abortSignal.removeEventListener('abort', onAbort);
          resolve(message);
        };
      });
    },
    async nextWithin(abortSignal, timeoutMs) {
      if (buffered.length > 0) return buffered.shift() as T;
      const quiet = new AbortController();
      const timer = setTimeout(() => quiet.abort(), timeoutMs);
      try {
        return await queue.next(AbortSignal.any([abortSignal, quiet.signal]));
      } catch (error) {
        if (abortSignal.aborted || !quiet.signal.aborted) throw error;
        return undefined;
      } finally {
        clearTimeout(timer);
      }
    },
  };
  return queue;
}
