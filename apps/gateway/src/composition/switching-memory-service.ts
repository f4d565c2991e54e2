import type { MemoryApi, MemoryHealth } from '@nexus/memory';

/**
 * The memory service while a background re-index runs: every call goes to the lexical service
 * until `switchTo` hands over the hybrid one on the re-indexed store, so callers keep one object
 * across the change and need no restart. `health()` says why search is still lexical.
 */
export class SwitchingMemoryService implements MemoryApi {
  #current: MemoryApi;
  #pending: (() => string) | undefined;

  constructor(options: { initial: MemoryApi; pendingReason: () => string }) {
    this.#current = options.initial;
    this.#pending = options.pendingReason;
  }

  /** From now on every call goes to `next`; calls already under way finish where they started. */
  switchTo(next: MemoryApi): void {
    this.#current = next;
    this.#pending = undefined;
  }

  add: MemoryApi['add'] = (options) => this.#current.add(options);
  search: MemoryApi['search'] = (options) => this.#current.search(options);
  context: MemoryApi['context'] = (options) => this.#current.context(options);
  list: MemoryApi['list'] = (options) => this.#current.list(options);
  standingFacts: MemoryApi['standingFacts'] = (options) => this.#current.standingFacts(options);
  get: MemoryApi['get'] = (options) => this.#current.get(options);
  update: MemoryApi['update'] = (options) => this.#current.update(options);
  delete: MemoryApi['delete'] = (options) => this.#current.delete(options);
  reset: MemoryApi['reset'] = (options) => this.#current.reset(options);
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
