import type { StatementSync } from 'node:sqlite';
import { PersonLexicalIndex } from '../lexical/person-lexical-index.ts';
import { PendingChanges } from './pending-changes.ts';

export interface LexicalCacheOptions {
  /** Bytes all cached people may take together (least recently searched evicted first). Default 64 MiB. */
  maxBytes?: number;
  /**
   * A person with at most this many memories is indexed inside their first search (~10 ms per
   * 1,000); a larger one in slices between other work while their searches use FTS5. Default 5,000.
   */
  inlineBuildMax?: number;
  /** Memories read and indexed per slice of a background build. Default 2,000 (~20 ms). */
  buildSliceRows?: number;
}

export interface LexicalCacheStats {
  bytes: number;
  maxBytes: number;
  /** Indexes built since the store opened: one per person searched, again only after a change elsewhere or eviction. */
  builds: number;
  /** People whose index is held, least recently searched first. */
  people: Array<{ userId: string; memories: number; bytes: number }>;
  /** People whose index is being built in the background. */
  building: string[];
}

type Statements = (sql: string) => StatementSync;

/** The store's connection as its caches use it: prepared statements and `PRAGMA data_version`. */
export interface CacheConnection {
  statements: Statements;
  /**
   * The connection's `PRAGMA data_version` (moves when another connection commits). The store
   * reads it once per pass of the event loop for both caches; `fresh` reads it now.
   */
  dataVersion: (options?: { fresh: boolean }) => number;
}

/** A person's index and the `person_versions` change number it reflects. */
interface Entry {
  index: PersonLexicalIndex;
  version: number;
  /** False after another connection committed, until the version is compared again. */
  verified: boolean;
}

/** A background build: the index so far, the last rowid read, and the next slice's timer. */
interface Build {
  index: PersonLexicalIndex;
  afterRowid: number;
  timer: NodeJS.Immediate | undefined;
  /** Told true when the index is ready, false when the build is dropped. */
  settled: Array<(ready: boolean) => void>;
}

/**
 * The embedded store's lexical search: a `PersonLexicalIndex` per person, built from the
 * `memories` table on the person's first search and kept in step with the store's own writes,
 * which are applied when their transaction commits and dropped when it rolls back.
 *
 * A person with few memories is indexed inside that first search. A large one is read in
 * slices, one per event-loop turn, so a 100k build (~1 s) never holds the loop for more than a
 * slice; until it is ready `index` answers undefined and the store searches with FTS5, as it
 * did before this index existed. Writes committed meanwhile reach the building index too: a row
 * changed before its slice is read is read again as it now is, one deleted is no longer found.
 *
 * Another connection's commit (the `nexus memory` commands, a re-index) changes `PRAGMA
 * data_version`; then builds under way start over on the next search, and each ready index is
 * checked against its person's change number (`person_versions`, kept by triggers) and rebuilt
 * only if that person's memories changed. All indexes together stay under `maxBytes`, least
 * recently searched evicted first; the person being searched is always kept.
 */
export class SqliteLexicalCache {
  readonly #statements: Statements;
  readonly #dataVersionNow: CacheConnection['dataVersion'];
  readonly #maxBytes: number;
  readonly #inlineBuildMax: number;
  readonly #sliceRows: number;
  /** Map order is recency of use: the first entry is evicted first. */
  readonly #entries = new Map<string, Entry>();
  readonly #building = new Map<string, Build>();
  readonly #pending = new PendingChanges();
  /** People whose ready index the current transaction changed. */
  #written = new Set<string>();
  #builds = 0;
  #dataVersion: number | undefined;

  constructor(connection: CacheConnection, options: LexicalCacheOptions = {}) {
    this.#statements = connection.statements;
    this.#dataVersionNow = connection.dataVersion;
    this.#maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
    this.#inlineBuildMax = options.inlineBuildMax ?? 5_000;
    this.#sliceRows = options.buildSliceRows ?? 2_000;
  }

  /**
   * The person's index, built now if they are small; undefined while a large person's index is
   * built in the background (search with FTS5 meanwhile). Call outside a write transaction.
   */
  index(userId: string): PersonLexicalIndex | undefined {
    const cached = this.#upToDate(userId);
    if (cached) {
      this.#entries.delete(userId);
      this.#entries.set(userId, cached);
      return cached.index;
    }
    this.#entries.delete(userId);
    const building = this.#building.get(userId);
    // A search during the build also advances it by a slice: calls that never yield to the event
    // loop (a loop of awaited in-process searches) would otherwise starve the timer's slices.
    if (building) return this.#runSlice(userId, building) ? building.index : undefined;
    const build: Build = { index: new PersonLexicalIndex(), afterRowid: 0, timer: undefined, settled: [] };
    if (this.#memoryCount(userId) <= this.#inlineBuildMax) {
      this.#readSlice(userId, build, Number.MAX_SAFE_INTEGER);
      this.#ready(userId, build.index);
      return build.index;
    }
    this.#building.set(userId, build);
    this.#scheduleSlice(userId, build);
    return undefined;
  }

  /**
   * How many memories the person has, when their index is ready and up to date (compared with
   * their change number after another connection committed); undefined otherwise. Never builds.
   */
  knownSize(userId: string): number | undefined {
    return this.#upToDate(userId)?.index.size;
  }

  /**
   * The person's ready entry if it reflects their current change number (compared once after
   * another connection committed, then trusted until the next such commit); undefined otherwise.
   */
  #upToDate(userId: string): Entry | undefined {
    this.#checkDataVersion();
    const cached = this.#entries.get(userId);
    if (!cached || !(cached.verified || this.#version(userId) === cached.version)) return undefined;
    cached.verified = true;
    return cached;
  }

  /**
   * Resolves true once the person's index is ready (starting its build like a search would),
   * false if the build was dropped (the store closed, or another connection committed).
   */
  warm(userId: string): Promise<boolean> {
    if (this.index(userId)) return Promise.resolve(true);
    const build = this.#building.get(userId);
    if (!build) return Promise.resolve(false);
    return new Promise((resolve) => build.settled.push(resolve));
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
      builds: this.#builds,
      people,
      building: [...this.#building.keys()],
    };
  }

  /** A memory written (added or changed) inside the current transaction. */
  written(userId: string, rowid: number, scope: string, content: string): void {
    this.#pending.add(() => this.#apply(userId, (index) => index.upsert(rowid, scope, content)));
  }

  /** A memory linked to a session inside the current transaction (its neighbours lend it words). */
  linked(userId: string, rowid: number, sessionId: string): void {
    this.#pending.add(() => this.#apply(userId, (index) => index.link(rowid, sessionId)));
  }

  /** A memory deleted inside the current transaction. */
  removed(userId: string, rowid: number): void {
    this.#pending.add(() => this.#apply(userId, (index) => index.remove(rowid)));
  }

  /** How far the current transaction got, for `rollbackTo` when a savepoint is undone. */
  mark(): number {
    return this.#pending.mark();
  }

  rollbackTo(mark: number): void {
    this.#pending.rollbackTo(mark);
  }

  committed(): void {
    this.#pending.apply();
    const written = this.#written;
    this.#written = new Set();
    // The indexes now hold this connection's changes. If no other connection committed in the
    // meantime, the change numbers the triggers just wrote are this commit's own: take them.
    // Otherwise `#checkDataVersion` has left the entries to be compared on their next search.
    if (!this.#checkDataVersion({ fresh: true })) {
      for (const userId of written) {
        const entry = this.#entries.get(userId);
        if (entry) entry.version = this.#version(userId);
      }
    }
    // Removed memories' slots are still walked: rebuild a person's index once half of it is gone.
    for (const [userId, entry] of this.#entries) {
      if (entry.index.deadShare > 0.5) this.#entries.delete(userId);
    }
  }

  rolledBack(): void {
    this.#pending.clear();
    this.#written = new Set();
  }

  clear(): void {
    this.#entries.clear();
    this.#cancelBuilds();
    this.#pending.clear();
    this.#written = new Set();
  }

  #apply(userId: string, change: (index: PersonLexicalIndex) => void): void {
    const entry = this.#entries.get(userId);
    if (entry) {
      change(entry.index);
      this.#written.add(userId);
    }
    const build = this.#building.get(userId);
    if (build) change(build.index);
  }

  #scheduleSlice(userId: string, build: Build): void {
    // Not unref'd: an unref'd immediate waits for something else to wake the loop (measured: a
    // 100k build took 131 s instead of 0.8 s in an otherwise idle process). Close cancels it.
    build.timer = setImmediate(() => {
      build.timer = undefined;
      // Another connection committed: this build may have missed its changes; start over later.
      if (this.#checkDataVersion() || this.#building.get(userId) !== build) return;
      this.#runSlice(userId, build);
    });
  }

  /** Reads the build's next slice; schedules the one after, or makes the index ready (true). */
  #runSlice(userId: string, build: Build): boolean {
    if (this.#readSlice(userId, build, this.#sliceRows)) {
      if (!build.timer) this.#scheduleSlice(userId, build);
      return false;
    }
    // The index is about to claim the person's current change number: read data_version anew,
    // so another connection's commit since the earlier slices drops the build instead.
    if (this.#checkDataVersion({ fresh: true })) return false;
    if (build.timer) clearImmediate(build.timer);
    this.#building.delete(userId);
    this.#ready(userId, build.index);
    for (const settle of build.settled) settle(true);
    return true;
  }

  /** Indexes up to `rows` more of the person's memories by rowid; true if there may be more. */
  #readSlice(userId: string, build: Build, rows: number): boolean {
    const statement = this.#statements(
      'SELECT rowid, scope, content FROM memories WHERE user_id = ? AND rowid > ? ORDER BY rowid LIMIT ?',
    );
    // Arrays, not one object per row: a build reads every row of the person.
    statement.setReturnArrays(true);
    const slice = statement.all(userId, build.afterRowid, rows) as unknown as Array<[number, string, string]>;
    const last = slice.at(-1)?.[0];
    // Links first: each memory's neighbours are then set once, when its text is indexed.
    if (last !== undefined) {
      // The slice's session links, by the links' memory index (a range of rowids).
      const links = this.#statements(
        // `+user_id`: the range on the memory index, not a walk of the person's every link per slice.
        'SELECT memory_rowid, session_id FROM session_links WHERE memory_rowid > ? AND memory_rowid <= ? AND +user_id = ?',
      );
      links.setReturnArrays(true);
      const rows = links.all(build.afterRowid, last, userId) as unknown as Array<[number, string]>;
      for (const [rowid, sessionId] of rows) build.index.link(rowid, sessionId);
    }
    for (const [rowid, scope, content] of slice) build.index.upsert(rowid, scope, content);
    build.afterRowid = last ?? build.afterRowid;
    return slice.length === rows;
  }

  /** A finished index becomes the person's entry, at the change number the file now has. */
  #ready(userId: string, index: PersonLexicalIndex): void {
    this.#builds += 1;
    this.#entries.set(userId, { index, version: this.#version(userId), verified: true });
    this.#evict();
  }

  #memoryCount(userId: string): number {
    return (
      this.#statements('SELECT count(*) AS total FROM memories WHERE user_id = ?').get(userId) as {
        total: number;
      }
    ).total;
  }

  #version(userId: string): number {
    const row = this.#statements('SELECT version FROM person_versions WHERE user_id = ?').get(userId) as
      | { version: number }
      | undefined;
    return row?.version ?? 0;
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

  #cancelBuilds(): void {
    const builds = [...this.#building.values()];
    this.#building.clear();
    for (const build of builds) {
      if (build.timer) clearImmediate(build.timer);
      for (const settle of build.settled) settle(false);
    }
  }

  /**
   * After another connection's commit (`PRAGMA data_version` moved): ready indexes are compared
   * with their person's change number on their next search, builds start over. True if it moved.
   */
  #checkDataVersion(options?: { fresh: boolean }): boolean {
    const version = this.#dataVersionNow(options);
    if (version === this.#dataVersion) return false;
    const first = this.#dataVersion === undefined;
    this.#dataVersion = version;
    if (first) return false;
    for (const entry of this.#entries.values()) entry.verified = false;
    this.#cancelBuilds();
    return true;
  }
}
