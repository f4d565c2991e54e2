export interface TtlSetOptions {
  /** How long a key is remembered after it was added. */
  ttlMs: number;
  /** Upper bound on remembered keys; the least recently used key is evicted first. */
  maxSize: number;
  now?: () => number;
}

/**
 * Remembers keys for a while with a hard size bound, so an adapter can drop platform events it
 * has already seen (redelivered updates, gateway replays) without growing without limit.
 */
export class TtlSet {
  readonly #ttlMs: number;
  readonly #maxSize: number;
  readonly #now: () => number;
  /** Map order is recency order: the first entry is the least recently used. */
  readonly #expiresAt = new Map<string, number>();

  constructor(options: TtlSetOptions) {
    if (!(options.ttlMs > 0)) throw new RangeError(`TtlSet: ttlMs must be > 0, got ${options.ttlMs}`);
    if (!Number.isInteger(options.maxSize) || options.maxSize < 1) {
      throw new RangeError(`TtlSet: maxSize must be an integer >= 1, got ${options.maxSize}`);
    }
    this.#ttlMs = options.ttlMs;
    this.#maxSize = options.maxSize;
    this.#now = options.now ?? Date.now;
  }

  has(key: string): boolean {
    const expiresAt = this.#expiresAt.get(key);
    if (expiresAt === undefined) return false;
    if (expiresAt <= this.#now()) {
      this.#expiresAt.delete(key);
      return false;
    }
    // Touch for LRU order; the expiry stays where `add` put it.
    this.#expiresAt.delete(key);
    this.#expiresAt.set(key, expiresAt);
    return true;
  }

  add(key: string): void {
    const now = this.#now();
    this.#expiresAt.delete(key);
    this.#expiresAt.set(key, now + this.#ttlMs);
    this.#evict(now);
  }

  /** Forgets a key, e.g. a message that must be let in again when it comes back. */
  delete(key: string): void {
    this.#expiresAt.delete(key);
  }

  /** Returns true if the key was not present (or had expired) and is now added. */
  addIfAbsent(key: string): boolean {
    if (this.has(key)) return false;
    this.add(key);
    return true;
  }

  /** Number of keys that have not expired. */
  get size(): number {
    const now = this.#now();
    for (const [key, expiresAt] of this.#expiresAt) {
      if (expiresAt <= now) this.#expiresAt.delete(key);
    }
    return this.#expiresAt.size;
  }

  #evict(now: number): void {
    // Drop expired keys at the cold end first, then enforce the size bound.
    for (const [key, expiresAt] of this.#expiresAt) {
      if (expiresAt > now) break;
      this.#expiresAt.delete(key);
    }
    while (this.#expiresAt.size > this.#maxSize) {
      const oldest = this.#expiresAt.keys().next();
      if (oldest.done) break;
      this.#expiresAt.delete(oldest.value);
    }
  }
}
