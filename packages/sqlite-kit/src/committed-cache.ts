import type { DatabaseSync } from 'node:sqlite';
import { othersCommittedWatcher } from './committed-version.ts';

/**
 * Rows of one file kept in memory while SQLite says they are still true: the copy is emptied when
 * another connection commits (`PRAGMA data_version`, read once per pass of the event loop; see
 * `committedVersionReader`). This connection's own writes do not move that version, so the
 * owner keeps the copy in step as it writes (`set`, `update`, `delete`, `clear`). Bounded: past
 * `maxEntries` keys it starts over.
 */
export class CommittedCache<V> {
  readonly #entries = new Map<string, V>();
  readonly #othersCommitted: () => boolean;
  readonly #maxEntries: number;

  constructor(database: DatabaseSync, options: { maxEntries?: number } = {}) {
    this.#othersCommitted = othersCommittedWatcher(database);
    this.#maxEntries = options.maxEntries ?? 10_000;
  }

  /** The kept value of `key`, or what `read` returns from the file (then kept). */
  get(key: string, read: () => V): V {
    if (this.#othersCommitted()) this.#entries.clear();
    if (this.#entries.has(key)) return this.#entries.get(key) as V;
    return this.set(key, read());
  }

  /** Keeps `value` for `key` (what this connection just wrote, or read); returns it. */
  set(key: string, value: V): V {
    if (this.#entries.size >= this.#maxEntries && !this.#entries.has(key)) this.#entries.clear();
    this.#entries.set(key, value);
    return value;
  }

  /** Changes the kept value of `key` after this connection wrote it; nothing when none is kept. */
  update(key: string, change: (value: V) => V): void {
    if (this.#entries.has(key)) this.#entries.set(key, change(this.#entries.get(key) as V));
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
  }
}
