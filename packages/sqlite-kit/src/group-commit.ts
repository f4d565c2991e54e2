/**
 * Group commit: writes queued during one event-loop turn are committed together, so a batch of
 * concurrent writes pays for one transaction instead of one each (a WAL commit, and now and then
 * a checkpoint, costs more than the inserts themselves). Each write's promise settles only after
 * the commit that holds it, so an awaited write is as durable as before. `commit` returns one
 * outcome per item: an `Error` rejects only that item; anything else is the item's result.
 */
export class GroupCommit<T, R = void> {
  readonly #commit: (items: readonly T[]) => ReadonlyArray<unknown>;
  readonly #pending: Array<{ item: T; resolve: (result: R) => void; reject: (error: unknown) => void }> = [];
  #scheduled: NodeJS.Immediate | undefined;

  constructor(commit: (items: readonly T[]) => ReadonlyArray<unknown>) {
    this.#commit = commit;
  }

  add(item: T): Promise<R> {
    return new Promise((resolve, reject) => {
      this.#pending.push({ item, resolve, reject });
      this.#scheduled ??= setImmediate(() => this.flush());
    });
  }

  /** True when a queued item matches, e.g. one of the person's memories a read must see. */
  pending(predicate: (item: T) => boolean = () => true): boolean {
    return this.#pending.some((entry) => predicate(entry.item));
  }

  /** Commits everything queued now (before a read or write that must see it, or on close). */
  flush(): void {
    if (this.#scheduled) clearImmediate(this.#scheduled);
    this.#scheduled = undefined;
    const batch = this.#pending.splice(0);
    if (batch.length === 0) return;
    let outcomes: ReadonlyArray<unknown>;
    try {
      outcomes = this.#commit(batch.map((entry) => entry.item));
    } catch (error) {
      for (const entry of batch) entry.reject(error);
      return;
    }
    batch.forEach((entry, index) => {
      const outcome = outcomes[index];
      if (outcome instanceof Error) entry.reject(outcome);
      else entry.resolve(outcome as R);
    });
  }
}
