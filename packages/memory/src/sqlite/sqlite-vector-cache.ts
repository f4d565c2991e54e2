import { int8DotProductsAvailable } from '../vectors/int8-dot-products.ts';
import { QuantisedVectorIndex } from '../vectors/quantised-vector-index.ts';
import { floats, VectorIndexBuild } from '../vectors/vector-index-build.ts';
import { PendingChanges } from './pending-changes.ts';
import type { CacheConnection } from './sqlite-lexical-cache.ts';

export interface VectorCacheOptions {
  /** A person's vectors are cached from this many on; smaller partitions are scanned by sqlite-vec. Default 2,000. */
  minVectors?: number;
  /** Bytes all cached people may take together (least recently searched evicted first). Default 64 MiB. */
  maxBytes?: number;
  /**
   * Build a person's index in slices between other work while searches use the exact scan
   * (default), or in the first search itself (`false`: that search waits, ~1 s at 100k).
   */
  buildInBackground?: boolean;
  /** Vectors read and quantised per slice of a background build. Default 1,000 (~5–10 ms). */
  buildSliceRows?: number;
  /**
   * On open, build the indexes of the people with the most recently written memories, in the
   * background and only into the free budget, so their first search after a restart already
   * has one. Default true.
   */
  warmOnOpen?: boolean;
}

export interface VectorCacheStats {
  /** Bytes held by ready and building indexes (int8 codes, per-vector arrays, rowid map). */
  bytes: number;
  maxBytes: number;
  /** People whose index is ready, least recently searched first. */
  people: Array<{ userId: string; vectors: number; bytes: number }>;
  building: string[];
}

/**
 * In-process `QuantisedVectorIndex` per person, built from the plain vector table when a large
 * person is first searched. Until it is ready that person's searches take the exact sqlite-vec
 * scan, which returns the same results (see `denseRanking`), so a build never delays a reply.
 * The store reports its own writes (applied when their transaction commits, dropped on
 * rollback), to ready and building indexes alike; another connection's commit (a worker
 * process, a reindex) changes `PRAGMA data_version`, and then every index is dropped and
 * rebuilt on demand. All indexes together stay under `maxBytes`, least recently searched
 * evicted first.
 */
export class SqliteVectorCache {
  readonly #statements: CacheConnection['statements'];
  readonly #dataVersionNow: () => number;
  readonly #dimensions: number;
  readonly #minVectors: number;
  readonly #maxBytes: number;
  readonly #background: boolean;
  readonly #sliceRows: number;
  /** Map order is recency of use: the first entry is evicted first. */
  readonly #entries = new Map<string, QuantisedVectorIndex>();
  readonly #building = new Map<string, VectorIndexBuild>();
  readonly #pending = new PendingChanges();
  #dataVersion: number | undefined;
  #closed = false;

  constructor(connection: CacheConnection, dimensions: number, options: VectorCacheOptions = {}) {
    this.#statements = connection.statements;
    this.#dataVersionNow = connection.dataVersion;
    this.#dimensions = dimensions;
    this.#minVectors = options.minVectors ?? 2_000;
    this.#maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
    this.#background = options.buildInBackground ?? true;
    this.#sliceRows = options.buildSliceRows ?? 1_000;
  }

  static available(): boolean {
    return int8DotProductsAvailable();
  }

  get bytes(): number {
    let total = 0;
    for (const entry of this.#entries.values()) total += entry.bytes;
    for (const build of this.#building.values()) total += build.index.bytes;
    return total;
  }

  stats(): VectorCacheStats {
    return {
      bytes: this.bytes,
      maxBytes: this.#maxBytes,
      people: [...this.#entries].map(([userId, entry]) => ({
        userId,
        vectors: entry.size,
        bytes: entry.bytes,
      })),
      building: [...this.#building.keys()],
    };
  }

  /**
   * The person's index when it is ready. Otherwise undefined (search exactly), and a build is
   * started if the person is large enough and fits the budget. `memories` is the person's count
   * when the caller already knows it (from their lexical index); otherwise it is counted.
   */
  index(userId: string, memories?: number): QuantisedVectorIndex | undefined {
    this.#checkDataVersion();
    const cached = this.#entries.get(userId);
    if (cached) {
      this.#entries.delete(userId);
      this.#entries.set(userId, cached);
      return cached;
    }
    if (memories !== undefined && memories < this.#minVectors) return undefined;
    const build = this.#building.get(userId) ?? this.#startBuild(userId, { evict: true });
    if (build && !this.#background) build.runToEnd();
    return this.#entries.get(userId);
  }

  /**
   * Builds the person's index now if it is not ready (in the background, like a search would);
   * resolves true once it is ready, false if the person is too small, does not fit the free
   * budget (`evict: false` never pushes out an index that is in use) or the build was dropped.
   */
  warm(userId: string, options: { evict: boolean }): Promise<boolean> {
    this.#checkDataVersion();
    if (this.#entries.has(userId)) return Promise.resolve(true);
    const build = this.#building.get(userId) ?? this.#startBuild(userId, options);
    if (!build) return Promise.resolve(false);
    if (!this.#background) build.runToEnd();
    return build.done;
  }

  /** A vector written inside the current transaction. */
  written(userId: string, rowid: number, scope: string, unit: Uint8Array): void {
    this.#pending.add(() =>
      (this.#entries.get(userId) ?? this.#building.get(userId)?.index)?.upsert(rowid, scope, floats(unit)),
    );
  }

  /** A vector deleted inside the current transaction. */
  removed(rowid: number): void {
    this.#pending.add(() => {
      for (const entry of this.#entries.values()) entry.remove(rowid);
      for (const build of this.#building.values()) build.index.remove(rowid);
    });
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
    // Removed slots are still scanned: rebuild a person's index once half of it is gone.
    for (const [userId, entry] of this.#entries) {
      if (entry.size < entry.slots / 2) this.#entries.delete(userId);
    }
    // Inserts may have grown an index past the budget: drop the least recently searched.
    this.#evictFor(0);
  }

  rolledBack(): void {
    this.#pending.clear();
  }

  /**
   * Warms the large people most recently written to, one build at a time, while they fit the
   * free budget. Their count comes from one scan of the (user_id, updated_at) index.
   */
  async warmRecent(): Promise<string[]> {
    const people = this.#statements(
      `SELECT user_id AS userId FROM memories GROUP BY user_id HAVING count(*) >= ?
       ORDER BY max(updated_at) DESC`,
    ).all(this.#minVectors) as Array<{ userId: string }>;
    const warmed: string[] = [];
    for (const { userId } of people) {
      if (this.#closed) break;
      if (await this.warm(userId, { evict: false })) warmed.push(userId);
    }
    return warmed;
  }

  close(): void {
    this.#closed = true;
    this.clear();
  }

  clear(): void {
    this.#entries.clear();
    for (const build of this.#building.values()) build.cancel();
    this.#building.clear();
  }

  #checkDataVersion(): void {
    const version = this.#dataVersionNow();
    if (version !== this.#dataVersion) {
      this.clear();
      this.#dataVersion = version;
    }
  }

  #startBuild(userId: string, options: { evict: boolean }): VectorIndexBuild | undefined {
    if (this.#closed) return undefined;
    const { count } = this.#statements('SELECT count(*) AS count FROM memories WHERE user_id = ?').get(
      userId,
    ) as { count: number };
    if (count < this.#minVectors) return undefined;
    const index = new QuantisedVectorIndex(this.#dimensions);
    const capacity = QuantisedVectorIndex.capacityFor(count);
    const bytes = index.bytesFor(capacity);
    if (options.evict) this.#evictFor(bytes);
    if (this.bytes + bytes > this.#maxBytes) return undefined;
    index.reserve(capacity);
    const build: VectorIndexBuild = new VectorIndexBuild({
      userId,
      index,
      statements: this.#statements,
      sliceRows: this.#sliceRows,
      // A slice first checks that no other connection changed the file since the build began.
      stillValid: (): boolean => {
        this.#checkDataVersion();
        return this.#building.get(userId) === build;
      },
      finished: (ready) => {
        if (this.#building.get(userId) !== build) return;
        this.#building.delete(userId);
        if (ready) this.#entries.set(userId, index);
      },
    });
    this.#building.set(userId, build);
    if (this.#background) build.start();
    return build;
  }

  /** Evicts ready indexes, least recently searched first, until `bytes` more fit. */
  #evictFor(bytes: number): void {
    let total = this.bytes;
    for (const [userId, entry] of this.#entries) {
      if (total + bytes <= this.#maxBytes) return;
      this.#entries.delete(userId);
      total -= entry.bytes;
    }
  }
}
