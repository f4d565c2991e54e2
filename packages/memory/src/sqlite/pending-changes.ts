/**
 * Changes to an in-process index made inside a write transaction, held until it commits: a
 * savepoint undone drops what came after its mark, a rollback drops them all. The store's caches
 * (vector and lexical) each keep one, so an index never shows a write SQLite undid.
 */
export class PendingChanges {
  #changes: Array<() => void> = [];

  add(change: () => void): void {
    this.#changes.push(change);
  }

  /** How far the transaction got, for `rollbackTo` when a savepoint is undone. */
  mark(): number {
    return this.#changes.length;
  }

  rollbackTo(mark: number): void {
    this.#changes.length = mark;
  }

  /** The transaction committed: applies its changes in order. */
  apply(): void {
    const changes = this.#changes;
    this.#changes = [];
    for (const change of changes) change();
  }

  /** The transaction rolled back, or the cache was cleared: forgets its changes. */
  clear(): void {
    this.#changes = [];
  }
}
