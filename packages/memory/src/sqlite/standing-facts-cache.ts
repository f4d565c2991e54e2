import type { Memory } from '../model/memory.ts';
import type { StoreStandingOptions } from '../model/memory-store.ts';
import { mergeStandingKinds, STANDING_KINDS } from '../ranking/standing-kinds.ts';
import type { Statements } from './memory-rows.ts';
import { MEMORY_COLUMNS, type MemoryRow, memoryFromRow } from './sqlite-schema.ts';

/**
 * One memory as read. `memory` is what `order` compares and is never handed out: each read
 * returns a copy with its own `metadata`, parsed again from the row's text.
 */
interface CachedMemory {
  memory: Memory;
  metadata: string;
}

function copyOf(entry: CachedMemory): Memory {
  return { ...entry.memory, metadata: JSON.parse(entry.metadata) as Memory['metadata'] };
}

/** What was read of one category and source, newest first: a prefix of it, or all of it. */
interface KindPrefix {
  memories: CachedMemory[];
  /** The kind has no more rows than these. */
  complete: boolean;
}

/** A kind's cached prefix was not deep enough for this pick: read from SQL instead. */
const RAN_OUT = Symbol('standing prefix ran out');

/**
 * The person's standing facts (`MemoryStore.standing`) without a SQL cursor per kind on every
 * turn. Each read is the k-way merge of one stream per category and source, newest first, on the
 * `memories_standing` index (`mergeStandingKinds`); what those streams yielded is kept per person,
 * so the next read merges the same prefixes in memory. The pick is the same: the prefixes are the
 * streams' own first rows, and a merge that would need a row past a prefix (a later `now` moved
 * the order, or a larger `limit`) reads from SQL again and keeps that instead.
 *
 * The prefixes stay true while nothing changes the person's rows: this connection's writes drop
 * the person (`changed`), the uses it records patch `last_used_at` (`used`); another connection's
 * commit (`PRAGMA data_version`, read on every call: these rows are returned, not just ranked)
 * drops everyone.
 */
export class StandingFactsCache {
  readonly #dataVersion: () => number;
  readonly #maxPeople: number;
  /** Map order is recency of use: the first person is evicted first. */
  readonly #people = new Map<string, KindPrefix[]>();
  /** Every cached memory by id, for `used` (ids are unique across people). */
  readonly #byId = new Map<string, CachedMemory>();
  #seenVersion: number | undefined;

  constructor(options: { dataVersion: () => number; maxPeople?: number }) {
    this.#dataVersion = options.dataVersion;
    // A person keeps about `limit` + 8 memories (~20 KB at a context's 40): 500 people stay near 10 MB.
    this.#maxPeople = options.maxPeople ?? 500;
  }

  /** The person's `limit` best user-scope memories by `order`, as the merge over SQL would pick them. */
  read(statement: Statements, options: StoreStandingOptions): Memory[] {
    const version = this.#dataVersion();
    if (version !== this.#seenVersion) {
      this.clear();
      this.#seenVersion = version;
    }
    const cached = this.#people.get(options.userId);
    if (cached) {
      const picked = mergeCached(cached, options);
      if (picked) {
        this.#people.delete(options.userId);
        this.#people.set(options.userId, cached);
        return picked.map(copyOf);
      }
    }
    this.changed(options.userId);
    const prefixes: KindPrefix[] = STANDING_KINDS.map(() => ({ memories: [], complete: false }));
    const picked = readKinds(statement, options, prefixes);
    this.#people.set(options.userId, prefixes);
    for (const prefix of prefixes)
      for (const entry of prefix.memories) this.#byId.set(entry.memory.id, entry);
    this.#evict();
    return picked.map(copyOf);
  }

  /** This connection wrote (or is writing) the person's memories: their prefixes are dropped. */
  changed(userId: string): void {
    const prefixes = this.#people.get(userId);
    if (!prefixes) return;
    this.#people.delete(userId);
    for (const prefix of prefixes) for (const entry of prefix.memories) this.#byId.delete(entry.memory.id);
  }

  /** This connection set `last_used_at = at` on these memories (committed). */
  used(ids: readonly string[], at: number): void {
    for (const id of ids) {
      const entry = this.#byId.get(id);
      if (!entry) continue;
      entry.memory.lastUsedAt = at;
    }
  }

  clear(): void {
    this.#people.clear();
    this.#byId.clear();
  }

  #evict(): void {
    for (const userId of this.#people.keys()) {
      if (this.#people.size <= this.#maxPeople) break;
      this.changed(userId);
    }
  }
}

/** The merge over the kept prefixes; undefined when it needs a row past one of them. */
function mergeCached(
  prefixes: readonly KindPrefix[],
  options: StoreStandingOptions,
): CachedMemory[] | undefined {
  const byMemory = new Map<Memory, CachedMemory>();
  const streams = prefixes.map((prefix) => prefixStream(prefix, byMemory));
  try {
    return mergeStandingKinds(streams, options.order, options.limit).map((memory) => byMemory.get(memory)!);
  } catch (error) {
    if (error === RAN_OUT) return undefined;
    throw error;
  }
}

function* prefixStream(prefix: KindPrefix, byMemory: Map<Memory, CachedMemory>): Generator<Memory> {
  for (const entry of prefix.memories) {
    byMemory.set(entry.memory, entry);
    yield entry.memory;
  }
  if (!prefix.complete) throw RAN_OUT;
}

/**
 * One cursor per category and source on the `memories_standing` index, newest first, merged;
 * rows are read only as the merge asks for them, and each one read is kept in its kind's prefix.
 */
function readKinds(
  statement: Statements,
  options: StoreStandingOptions,
  prefixes: KindPrefix[],
): CachedMemory[] {
  // One statement per kind (a statement steps one cursor at a time).
  const cursors = STANDING_KINDS.map(({ category, source }) =>
    statement(
      `SELECT ${MEMORY_COLUMNS} FROM memories WHERE user_id = ? AND scope = 'user'
       AND category = '${category}' AND source = '${source}' ORDER BY updated_at DESC, id`,
    ).iterate(options.userId),
  );
  const byMemory = new Map<Memory, CachedMemory>();
  try {
    const streams = cursors.map((cursor, kind) =>
      recordingStream(cursor as IterableIterator<MemoryRow>, prefixes[kind]!, byMemory),
    );
    return mergeStandingKinds(streams, options.order, options.limit).map((memory) => byMemory.get(memory)!);
  } finally {
    // Ends each cursor, so no statement holds a read snapshot (the WAL could not be checkpointed).
    for (const cursor of cursors) cursor.return?.();
  }
}

function* recordingStream(
  rows: Iterator<MemoryRow>,
  prefix: KindPrefix,
  byMemory: Map<Memory, CachedMemory>,
): Generator<Memory> {
  for (let row = rows.next(); !row.done; row = rows.next()) {
    const entry = { memory: memoryFromRow(row.value), metadata: row.value.metadata };
    prefix.memories.push(entry);
    byMemory.set(entry.memory, entry);
    yield entry.memory;
  }
  prefix.complete = true;
}
