import type { Memory } from '../model/memory.ts';

/**
 * When memories last went into a context block, as this process knows it and the file does not
 * yet. `lastUsedAt` only ages a memory more slowly in ranking (see `recencyAge`); writing it on
 * every turn cost a write transaction of its own per turn. The store keeps the uses here, lays
 * them over every memory it returns (so its answers are what an immediate write would have
 * given), and writes them together at most once per interval, before a reset, and on close. What
 * a crash can lose is the last interval of uses; another connection sees them that much later.
 */
export class UnwrittenUses {
  /** Memory id → the latest use recorded here and not yet written. */
  #latest = new Map<string, number>();

  get size(): number {
    return this.#latest.size;
  }

  record(ids: readonly string[], at: number): void {
    for (const id of ids) {
      const known = this.#latest.get(id);
      if (known === undefined || at > known) this.#latest.set(id, at);
    }
  }

  /** The memory with its latest use (recorded here or in the file, whichever is newer). */
  apply<T extends Memory>(memory: T): T {
    const at = this.#latest.get(memory.id);
    if (at !== undefined && (memory.lastUsedAt === undefined || at > memory.lastUsedAt))
      memory.lastUsedAt = at;
    return memory;
  }

  /** `apply` to each memory, or each search hit's (nothing to do while no use waits). */
  applyAll(items: ReadonlyArray<Memory | { memory: Memory }>): void {
    if (this.#latest.size === 0) return;
    for (const item of items) this.apply('memory' in item ? item.memory : item);
  }

  /** The memory is gone: a later one given the same id (an import) starts with no use. */
  forget(id: string): void {
    this.#latest.delete(id);
  }

  /** Up to `limit` uses, oldest recorded first, forgotten here: the caller writes them. */
  take(limit: number): Array<[string, number]> {
    const taken: Array<[string, number]> = [];
    for (const entry of this.#latest) {
      if (taken.length >= limit) break;
      taken.push(entry);
    }
    for (const [id] of taken) this.#latest.delete(id);
    return taken;
  }

  /** Uses taken whose write failed: kept again (with any recorded meanwhile, the newer wins). */
  restore(uses: ReadonlyArray<[string, number]>): void {
    for (const [id, at] of uses) this.record([id], at);
  }

  clear(): void {
    this.#latest.clear();
  }
}
