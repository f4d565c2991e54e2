/**
 * Telegram forgets an update as soon as `getUpdates` is called with a higher `offset`, and
 * `@grammyjs/runner` asks for the next batch (with that higher offset) while the previous one is
 * still being handled. This holds each `getUpdates` back until every update below its offset has
 * settled, and lowers the offset to the first update that was not taken (core answered with a
 * retryable rejection, or the sink threw), so a hard kill or a refused intent never loses one:
 * Telegram hands it out again.
 */
export class OffsetConfirmation {
  readonly #retryDelayMs: number;
  /** Fetched and not yet settled. */
  readonly #outstanding = new Set<number>();
  /** Settled without being taken: must be fetched again. */
  readonly #notTaken = new Set<number>();
  #waiters: (() => void)[] = [];

  constructor(options: { retryDelayMs: number }) {
    this.#retryDelayMs = options.retryDelayMs;
  }

  /** Updates a `getUpdates` call returned; each must be settled before later offsets move. */
  received(updateIds: readonly number[]): void {
    for (const id of updateIds) this.#outstanding.add(id);
  }

  /** `taken` is false when the platform must hand the update out again. */
  settle(updateId: number, taken: boolean): void {
    if (!this.#outstanding.delete(updateId)) return;
    if (taken) this.#notTaken.delete(updateId);
    else this.#notTaken.add(updateId);
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  get outstanding(): number {
    return this.#outstanding.size;
  }

  /**
   * The offset to send instead of `requested`: waits until no update below `requested` is still
   * being handled, then returns the lowest update that was not taken (after a pause, so a busy
   * core is not hammered) or `requested` itself.
   */
  async offsetFor(requested: number, signal?: AbortSignal): Promise<number> {
    while (this.#blocking(requested)) await this.#nextSettle(signal);
    if (this.#notTaken.size === 0) return requested;
    const lowest = Math.min(...this.#notTaken);
    this.#notTaken.clear();
    await pause(this.#retryDelayMs, signal);
    return Math.min(lowest, requested);
  }

  #blocking(requested: number): boolean {
    for (const id of this.#outstanding) if (id < requested) return true;
    return false;
  }

  #nextSettle(signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const onAbort = () => reject(signal?.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.push(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
    });
  }
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
