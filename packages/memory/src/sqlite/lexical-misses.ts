/**
 * Per FTS5 partition (by its match expression: hashed session tokens, person and scope tokens),
 * the query words FTS5 was seen not to hold there since the file last changed. A conversation's
 * linked memories are few, and message after message mentions none of them; for such a
 * partition the store asks FTS5 only about the words not known absent, once and unscored, before
 * sending the scored queries (`ftsRanking`), and sends none when every word is known absent.
 *
 * Exact while the partition's rows stay as they were: the store empties this after each of its
 * own write transactions, and `current` empties it when another connection committed (`PRAGMA
 * data_version`, read once per pass of the event loop as for the store's other ranking caches).
 * Bounded (people, and words per partition); emptied on `reset`, so no forgotten person's
 * words stay here.
 */
export class LexicalMisses {
  readonly #absent = new Map<string, Set<string>>();
  readonly #maxPartitions: number;
  readonly #maxWords: number;
  #version: number | undefined;

  constructor(options: { maxPartitions?: number; maxWords?: number } = {}) {
    this.#maxPartitions = options.maxPartitions ?? 10_000;
    this.#maxWords = options.maxWords ?? 1_000;
  }

  /** Forgets everything if the file's committed version moved since the last call. */
  current(version: number): void {
    if (version !== this.#version) this.#absent.clear();
    this.#version = version;
  }

  /** Whether the partition's last search found nothing (then only unknown words are asked). */
  missed(partition: string): boolean {
    return this.#absent.has(partition);
  }

  /** The words not known to be absent from the partition. */
  unknown(partition: string, terms: readonly string[]): string[] {
    const absent = this.#absent.get(partition);
    return absent ? terms.filter((term) => !absent.has(term)) : [...terms];
  }

  /** FTS5 found none of `terms` in the partition. */
  absent(partition: string, terms: readonly string[]): void {
    let words = this.#absent.get(partition);
    if (!words) {
      if (this.#absent.size >= this.#maxPartitions) this.#absent.clear();
      words = new Set();
      this.#absent.set(partition, words);
    }
    if (words.size + terms.length > this.#maxWords) words.clear();
    for (const term of terms) words.add(term);
  }

  /** FTS5 found one of the words there: scored queries for this partition until it misses again. */
  matched(partition: string): void {
    this.#absent.delete(partition);
  }

  clear(): void {
    this.#absent.clear();
  }
}
