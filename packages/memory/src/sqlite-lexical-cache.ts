import type { StatementSync } from 'node:sqlite';
import { PersonLexicalIndex } from './person-lexical-index.ts';

export interface LexicalCacheOptions {
  /** Bytes all cached people may take together (least recently searched evicted first). Default 64 MiB. */
  maxBytes?: number;
}

export interface LexicalCacheStats {
  bytes: number;
  /** Indexes built since the store opened: one per person searched, again only after a change elsewhere or eviction. */
  builds: number;
  maxBytes: number;
  /** People whose index is held, least recently searched first. */
  people: Array<{ userId: string; memories: number; bytes: number }>;
}

type Statements = (sql: string) => StatementSync;

/** A person's index and the `person_versions` change number it reflects. */
interface Entry {
  index: PersonLexicalIndex;
  version: number;
  /** False after another connection committed, until the version is compared again. */
  verified: boolean;
}

/**
 * The embedded store's lexical search: a `PersonLexicalIndex` per person, built from the
 * `memories` table on the person's first search (one indexed read of all their rows: ~10 ms
 * per 1,000 memories) and kept in step with the store's own writes, which are applied when
 * their transaction commits and dropped when it rolls back. Another connection's commit (the
 * `nexus memory` commands, a re-index) changes `PRAGMA data_version`; then each index is checked
 * against its person's change number (`person_versions`, kept by triggers) on its next search
 * and rebuilt only if that person's memories changed. All indexes together stay under
 * `maxBytes`, least recently searched evicted first; the person being searched is always kept.
 */
export class SqliteLexicalCache {
  readonly #statements: Statements;
  readonly #maxBytes: number;
  /** Map order is recency of use: the first entry is evicted first. */
  readonly #entries = new Map<string, Entry>();
  #pending: Array<() => void> = [];
  /** People whose cached index the current transaction changed. */
  #written = new Set<string>();
  #builds = 0;
  #dataVersion: number | undefined;

  constructor(statements: Statements, options: LexicalCacheOptions = {}) {
    this.#statements = statements;
    this.#maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
  }

  /** The person's index, built now if it is not held. Call outside a write transaction. */
  index(userId: string): PersonLexicalIndex {
    this.#checkDataVersion();
    const cached = this.#entries.get(userId);
    if (cached && (cached.verified || this.#version(userId) === cached.version)) {
      cached.verified = true;
      this.#entries.delete(userId);
      this.#entries.set(userId, cached);
      return cached.index;
    }
    this.#entries.delete(userId);
    const version = this.#version(userId);
    const index = new PersonLexicalIndex();
    const rows = this.#statements('SELECT rowid, scope, content FROM memories WHERE user_id = ?');
    // Arrays, not one object per row: a build reads every row of the person.
    rows.setReturnArrays(true);
    for (const [rowid, scope, content] of rows.all(userId) as unknown as Array<[number, string, string]>) {
      index.upsert(rowid, scope, content);
    }
    this.#builds += 1;
    this.#entries.set(userId, { index, version, verified: true });
    this.#evict();
    return index;
  }

  stats(): LexicalCacheStats {
    const people = [...this.#entries].map(([userId, { index }]) => ({
      userId,
      memories: index.size,
      bytes: index.bytes,
    }));
    return {
      bytes: people.reduce((sum, person) => sum + person.bytes, 0),
      maxBytes: this.#maxBytes,
      people,
      builds: this.#builds,
    };
  }

  /** A memory written (added or changed) inside the current transaction. */
  written(userId: string, rowid: number, scope: string, content: string): void {
    this.#pending.push(() => this.#apply(userId, (index) => index.upsert(rowid, scope, content)));
  }

  /** A memory deleted inside the current transaction. */
  removed(userId: string, rowid: number): void {
    this.#pending.push(() => this.#apply(userId, (index) => index.remove(rowid)));
  }

  /** How far the current transaction got, for `rollbackTo` when a savepoint is undone. */
  mark(): number {
    return this.#pending.length;
  }

  rollbackTo(mark: number): void {
    this.#pending.length = mark;
  }

  committed(): void {
    const pending = this.#pending;
    this.#pending = [];
    for (const apply of pending) apply();
    const written = this.#written;
    this.#written = new Set();
    // The indexes now hold this connection's changes. If no other connection committed in the
    // meantime, the change numbers the triggers just wrote are this commit's own: take them.
    // Otherwise leave the entries unverified; the next search compares and rebuilds if needed.
    if (this.#dataVersionChanged()) this.#unverifyAll();
    else for (const userId of written) this.#takeVersion(userId);
    // Removed memories' slots are still walked: rebuild a person's index once half of it is gone.
    for (const [userId, entry] of this.#entries) {
      if (entry.index.deadShare > 0.5) this.#entries.delete(userId);
    }
  }

  rolledBack(): void {
    this.#pending = [];
    this.#written = new Set();
  }

  clear(): void {
    this.#entries.clear();
    this.#pending = [];
    this.#written = new Set();
  }

  #apply(userId: string, change: (index: PersonLexicalIndex) => void): void {
    const entry = this.#entries.get(userId);
    if (!entry) return;
    change(entry.index);
    this.#written.add(userId);
  }

  #takeVersion(userId: string): void {
    const entry = this.#entries.get(userId);
    if (entry) entry.version = this.#version(userId);
  }

  #version(userId: string): number {
    const row = this.#statements('SELECT version FROM person_versions WHERE user_id = ?').get(userId) as
      | { version: number }
      | undefined;
    return row?.version ?? 0;
  }

  #unverifyAll(): void {
    for (const entry of this.#entries.values()) entry.verified = false;
  }

  #evict(): void {
    let bytes = 0;
    for (const { index } of this.#entries.values()) bytes += index.bytes;
    for (const [userId, { index }] of this.#entries) {
      if (bytes <= this.#maxBytes || this.#entries.size === 1) break;
      this.#entries.delete(userId);
      bytes -= index.bytes;
    }
  }

  #checkDataVersion(): void {
    if (this.#dataVersionChanged()) this.#unverifyAll();
  }

  /** True once after another connection committed (and remembers the new data_version). */
  #dataVersionChanged(): boolean {
    const version = (this.#statements('PRAGMA data_version').get() as { data_version: number }).data_version;
    if (version === this.#dataVersion) return false;
    const first = this.#dataVersion === undefined;
    this.#dataVersion = version;
    return !first;
  }
}
