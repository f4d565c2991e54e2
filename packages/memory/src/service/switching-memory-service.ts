import type { MemoryApi, MemoryHealth } from '../model/memory-api.ts';

/**
 * The memory service while a background re-index runs: every call goes to the lexical service
 * until `switchTo` hands over the hybrid one on the re-indexed store, so callers keep one object
 * across the change and need no restart. `health()` says why search is still lexical.
 * `holdWrites` lets a re-index make its last check and switch with no write of this process
 * landing in between (Qdrant's copy has no transaction to do that in).
 */
export class SwitchingMemoryService implements MemoryApi {
  #current: MemoryApi;
  #pending: (() => string) | undefined;
  #writing = 0;
  #drained: (() => void) | undefined;
  #held: Promise<void> | undefined;

  constructor(options: { initial: MemoryApi; pendingReason: () => string }) {
    this.#current = options.initial;
    this.#pending = options.pendingReason;
  }

  /** From now on every call goes to `next`; calls already under way finish where they started. */
  switchTo(next: MemoryApi): void {
    this.#current = next;
    this.#pending = undefined;
  }

  /**
   * Runs `work` once the writes under way have finished, with new writes (add, update, delete,
   * reset) waiting until it is done; they then go to whichever service is current, so a
   * `switchTo` inside `work` sends them to the new one. Reads go on meanwhile.
   */
  async holdWrites<T>(work: () => Promise<T>): Promise<T> {
    while (this.#held) await this.#held;
    let release = () => {};
    this.#held = new Promise<void>((resolve) => {
      release = resolve;
    });
    try {
      if (this.#writing > 0)
        await new Promise<void>((resolve) => {
          this.#drained = resolve;
        });
      return await work();
    } finally {
      this.#held = undefined;
      release();
    }
  }

  async #write<T>(call: (service: MemoryApi) => Promise<T>): Promise<T> {
    while (this.#held) await this.#held;
    this.#writing++;
    try {
      return await call(this.#current);
    } finally {
      this.#writing--;
      if (this.#writing === 0) {
        this.#drained?.();
        this.#drained = undefined;
      }
    }
  }

  add: MemoryApi['add'] = (options) => this.#write((service) => service.add(options));
  search: MemoryApi['search'] = (options) => this.#current.search(options);
  context: MemoryApi['context'] = (options) => this.#current.context(options);
  list: MemoryApi['list'] = (options) => this.#current.list(options);
  standingFacts: MemoryApi['standingFacts'] = (options) => this.#current.standingFacts(options);
  get: MemoryApi['get'] = (options) => this.#current.get(options);
  update: MemoryApi['update'] = (options) => this.#write((service) => service.update(options));
  delete: MemoryApi['delete'] = (options) => this.#write((service) => service.delete(options));
  reset: MemoryApi['reset'] = (options) => this.#write((service) => service.reset(options));
  sessionMemories: MemoryApi['sessionMemories'] = (options) => this.#current.sessionMemories(options);
  stats: MemoryApi['stats'] = (options) => this.#current.stats(options);

  async health(options?: { abortSignal?: AbortSignal }): Promise<MemoryHealth> {
    const pending = this.#pending;
    const health = await this.#current.health(options);
    if (!pending) return health;
    const { embedder: _none, ...lexical } = health;
    return { ...lexical, search: 'lexical', reason: pending() };
  }
}
