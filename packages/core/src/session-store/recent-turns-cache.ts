import type { StoredTurn } from './session-store.ts';

interface Entry {
  /** The conversation's newest turns, oldest first: all of them when fewer than `limit` exist. */
  turns: StoredTurn[];
  /** The `limit` of the read that filled it. */
  limit: number;
  size: number;
}

/** What one cached turn is counted as beyond its text: the object and its other fields. */
const TURN_OVERHEAD = 200;

/**
 * The newest turns of the conversations this process read lately, so a turn's history is not
 * read from SQLite again when the store itself wrote everything since. The store keeps it in
 * step: a turn it commits is appended, anything else that changes history (a revision, a
 * forget) empties it, and so does a commit by another connection (see the session store).
 * Bounded by the size of the text it holds; the conversations read least recently go first.
 * Turns are frozen: every reader shares them.
 */
export class RecentTurnsCache {
  readonly #entries = new Map<string, Entry>();
  readonly #maxSize: number;
  #size = 0;

  /** `maxSize` in characters of turn text (plus a fixed amount per turn). */
  constructor(maxSize: number) {
    this.#maxSize = maxSize;
  }

  /** The newest `limit` turns, oldest first, when a read at least that long is cached. */
  get(conversationKey: string, limit: number): StoredTurn[] | undefined {
    const entry = this.#entries.get(conversationKey);
    if (entry === undefined || entry.limit < limit) return undefined;
    // Most recently used last, so eviction takes the first.
    this.#entries.delete(conversationKey);
    this.#entries.set(conversationKey, entry);
    return entry.turns.length > limit ? entry.turns.slice(-limit) : entry.turns.slice();
  }

  /** Keeps what a read of the newest `limit` turns returned. */
  set(conversationKey: string, limit: number, turns: readonly StoredTurn[]): void {
    this.forget(conversationKey);
    const entry: Entry = { turns: turns.map((turn) => Object.freeze(turn)), limit, size: 0 };
    for (const turn of entry.turns) entry.size += sizeOf(turn);
    if (entry.size > this.#maxSize) return;
    this.#entries.set(conversationKey, entry);
    this.#size += entry.size;
    this.#evict();
  }

  /** A turn this process committed as the conversation's newest. */
  appended(turn: StoredTurn): void {
    const entry = this.#entries.get(turn.conversationKey);
    if (entry === undefined) return;
    entry.turns.push(Object.freeze(turn));
    let added = sizeOf(turn);
    if (entry.turns.length > entry.limit) added -= sizeOf(entry.turns.shift() as StoredTurn);
    entry.size += added;
    this.#size += added;
    this.#evict();
  }

  forget(conversationKey: string): void {
    const entry = this.#entries.get(conversationKey);
    if (entry === undefined) return;
    this.#entries.delete(conversationKey);
    this.#size -= entry.size;
  }

  clear(): void {
    this.#entries.clear();
    this.#size = 0;
  }

  #evict(): void {
    for (const [key, entry] of this.#entries) {
      if (this.#size <= this.#maxSize) return;
      this.#entries.delete(key);
      this.#size -= entry.size;
    }
  }
}

function sizeOf(turn: StoredTurn): number {
  return turn.userText.length + turn.replyText.length + TURN_OVERHEAD;
}
