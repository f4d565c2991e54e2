export interface WindowCounterOptions {
  windowMs: number;
  now: () => number;
}

/** Counts occurrences in fixed windows; cheap enough to run on every inbound frame. */
export class WindowCounter {
  readonly #windowMs: number;
  readonly #now: () => number;
  #windowStart: number;
  #count = 0;

  constructor(options: WindowCounterOptions) {
    this.#windowMs = options.windowMs;
    this.#now = options.now;
    this.#windowStart = options.now();
  }

  /**
   * Records one occurrence. Returns the count in the current window (this one included) and how
   * many whole windows passed since the previous call, so callers can decay penalties.
   */
  increment(): { count: number; windowsElapsed: number } {
    const now = this.#now();
    const windowsElapsed = Math.max(0, Math.floor((now - this.#windowStart) / this.#windowMs));
    if (windowsElapsed > 0) {
      this.#windowStart += windowsElapsed * this.#windowMs;
      this.#count = 0;
    }
    this.#count += 1;
    return { count: this.#count, windowsElapsed };
  }
}
