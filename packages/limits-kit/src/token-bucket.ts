export interface TokenBucketOptions {
  /** Tokens available at once (the allowed burst). */
  capacity: number;
  /** Tokens added back per millisecond. */
  refillPerMs: number;
  now: () => number;
}

/**
 * Classic token bucket: a burst of `capacity`, then a steady rate of `refillPerMs`. The one
 * bucket behind the web socket's message guard and core's per-person and global rate limits.
 */
export class TokenBucket {
  readonly #capacity: number;
  readonly #refillPerMs: number;
  readonly #now: () => number;
  #tokens: number;
  #updatedAt: number;

  constructor(options: TokenBucketOptions) {
    this.#capacity = Math.max(1, options.capacity);
    this.#refillPerMs = Math.max(0, options.refillPerMs);
    this.#now = options.now;
    this.#tokens = this.#capacity;
    this.#updatedAt = options.now();
  }

  /** Tokens available now (fractions included), after refilling for the time passed. */
  available(): number {
    const now = this.#now();
    const elapsed = Math.max(0, now - this.#updatedAt);
    this.#updatedAt = now;
    this.#tokens = Math.min(this.#capacity, this.#tokens + elapsed * this.#refillPerMs);
    return this.#tokens;
  }

  /** Takes one token when available; false means the caller is over its rate. */
  take(): boolean {
    if (this.available() < 1) return false;
    this.#tokens -= 1;
    return true;
  }

  /** Whole milliseconds until one token is available; 0 when one is. */
  msUntilToken(): number {
    const missing = 1 - this.available();
    if (missing <= 0) return 0;
    return this.#refillPerMs === 0 ? Number.POSITIVE_INFINITY : Math.ceil(missing / this.#refillPerMs);
  }

  /** True when nothing has been taken that has not come back; such a bucket can be forgotten. */
  isFull(): boolean {
    return this.available() >= this.#capacity;
  }
}
