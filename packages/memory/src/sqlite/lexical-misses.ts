/**
 * The FTS5 partitions (by their match expression: hashed session tokens, person and scope
 * tokens) whose last lexical search found no word of its query. A conversation's linked memories
 * are few, and message after message mentions none of them; for such a partition the store first
 * asks FTS5 once whether any of the words is there (`ftsRanking`). Only a hint of which query to
 * send first: what is returned is always FTS5's own answer. Bounded; emptied when full.
 */
export class LexicalMisses {
  readonly #missed = new Set<string>();
  readonly #max: number;

  constructor(options: { max?: number } = {}) {
    this.#max = options.max ?? 10_000;
  }

  expected(partition: string): boolean {
    return this.#missed.has(partition);
  }

  record(partition: string, missed: boolean): void {
    if (!missed) {
      this.#missed.delete(partition);
      return;
    }
    if (this.#missed.size >= this.#max) this.#missed.clear();
    this.#missed.add(partition);
  }

  clear(): void {
    this.#missed.clear();
  }
}
