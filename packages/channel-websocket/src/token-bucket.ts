export interface TokenBucketOptions {
  /** Tokens available at once (the allowed burst). */
  capacity: number;
  /** Tokens added back per millisecond. */
  refillPerMs: number;
  now: () => number;
}

/** Classic token bucket: a burst of `capacity`, then a steady rate of `refillPerMs`. */
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

  /** Takes one token when available; false means the caller is over its rate. */
  take(): boolean {
    const now = this.#now();
    const elapsed = Math.max(0, now - this.#updatedAt);
    this.#updatedAt = now;
    this.#tokens = Math.min(this.#capacity, this.#tokens + elapsed * this.#refillPerMs);
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }
}
