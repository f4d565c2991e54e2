import { stemmer } from 'stemmer';
import type { RowRanking } from '../model/row-ranking.ts';
import { BM25_PARAMETERS } from './bm25-parameters.ts';
import { NEIGHBOUR_WEIGHTS, SessionNeighbours } from './session-neighbours.ts';

/** Okapi BM25 parameters (`BM25_PARAMETERS`, the same as Qdrant's sparse vectors). */
const K1 = BM25_PARAMETERS.k1;
const B = BM25_PARAMETERS.b;
/** FTS5's floor for the IDF of a word in half or more of the memories. */
const MIN_IDF = 1e-6;

const WORD_PATTERN = /[\p{L}\p{N}]+/gu;
/** Latin diacritics (what remove_diacritics removes); a kana's voicing mark is not one of them. */
const COMBINING_DIACRITICS = /[\u0300-\u036f]+/gu;
const ASCII_WORD = /^[a-z]+$/u;
/** Any character beyond ASCII: only such texts need Unicode normalisation. */
const BEYOND_ASCII = /[^\p{ASCII}]/u;

/** Stems of words seen lately: memories repeat their words, and stemming is most of tokenising. */
const stems = new Map<string, string>();
const MAX_REMEMBERED_STEMS = 50_000;

const SCOPE_CODES: Record<string, number> = { user: 1, global: 2, session: 3 };

/**
 * The index's tokens of a text, as FTS5's `porter unicode61 remove_diacritics 2` makes them:
 * letters and digits, diacritics removed, lower-cased, ASCII words Porter-stemmed.
 */
export function indexTokens(text: string): string[] {
  const folded = !BEYOND_ASCII.test(text)
    ? text
    : text.normalize('NFKD').replace(COMBINING_DIACRITICS, '').normalize('NFC');
  const words = folded.toLowerCase().match(WORD_PATTERN) ?? [];
  return words.map(stem);
}

/** Empties the stem cache: after a person is forgotten, none of their words stays in it. */
export function forgetRememberedStems(): void {
  stems.clear();
}

/** How many words the stem cache holds. */
export function rememberedStemCount(): number {
  return stems.size;
}

function stem(word: string): string {
  let stemmed = stems.get(word);
  if (stemmed === undefined) {
    stemmed = ASCII_WORD.test(word) ? stemmer(word) : word;
    if (stems.size >= MAX_REMEMBERED_STEMS) stems.clear();
    stems.set(word, stemmed);
  }
  return stemmed;
}

/** Words of one part of a query, and how much that part's BM25 counts. */
export interface WeightedWords {
  terms: readonly string[];
  weight: number;
  /** False: the words count only in the memory itself, not in its session neighbours (stop words). */
  neighbours?: boolean;
}

/**
 * One term's posting list, interleaved: slot, count, slot, count… A plain array of small
 * integers: most terms occur in one or two memories, and two typed arrays per term cost ~300
 * bytes where this costs ~60 (measured: 67 → 36 MB for 100k memories with a unique word each).
 */
type Postings = number[];

/** Neighbour places per slot: just before and after, then two away (`NEIGHBOUR_WEIGHTS`). */
const PLACES = NEIGHBOUR_WEIGHTS.length * 2;
/** Each place's weight: places 0 and 1 are one away, 2 and 3 two away. */
const PLACE_WEIGHTS = Array.from({ length: PLACES }, (_, place) => NEIGHBOUR_WEIGHTS[place >> 1] as number);

/** Heap bytes per term (map entry, array and its header) and per posting, for the budget. */
const BYTES_PER_TERM = 120;
const BYTES_PER_POSTING = 16;

/**
 * One person's memories as an in-process inverted index, ranked by BM25 with the person's own
 * statistics (documents, average length, document frequency): a search walks only the query
 * terms' postings and adds typed-array scores, about a microsecond per thousand postings, where
 * FTS5 stepped and scored every matching row through SQLite (a stop word's list is most of the
 * person's rows: 75–160 ms at 100k memories). Statistics per person also mean one person's
 * ranking never depends on what anybody else told the assistant.
 *
 * A removed memory's slot is marked dead and skipped; the owner rebuilds the index when too
 * many are dead (`deadShare`).
 */
export class PersonLexicalIndex {
  /** Float64: a rowid is a 64-bit integer, exact in a double up to 2^53. */
  #rowids = new Float64Array(64);
  #lengths = new Uint16Array(64);
  #scopes = new Uint8Array(64);
  #alive = new Uint8Array(64);
  #slots = 0;
  #live = 0;
  #liveLength = 0;
  readonly #slotOf = new Map<number, number>();
  readonly #postings = new Map<string, Postings>();
  #postingCount = 0;
  /** Per-search scratch: a score per slot, zeroed again after each search, and the slots scored. */
  #scores = new Float64Array(64);
  #touched = new Int32Array(64);
  /** Per-upsert scratch: how often each term occurs in the memory. */
  readonly #termCounts = new Map<string, number>();
  /** Session links by rowid: whose words a memory's neighbours lend it. */
  readonly #neighbours = new SessionNeighbours();
  /**
   * The same as slots, for the search's inner loop: `PLACES` entries per slot (-1 = none) for its
   * first session; a memory linked to more sessions has the others' in `#moreNeighbours` as
   * (slot, place) pairs. Kept up to date around every link, re-store and removal; allocated with
   * the first link, so a person with no sessions pays nothing for it.
   */
  #neighbourSlots = new Int32Array(0);
  readonly #moreNeighbours = new Map<number, number[]>();
  /** Per-term scratch of a neighbour-aware term: each slot's weighted, length-normalised count. */
  #termFrequencies = new Float64Array(64);
  #termTouched = new Int32Array(64);

  get size(): number {
    return this.#live;
  }

  /** Share of slots that belong to removed memories. */
  get deadShare(): number {
    return this.#slots === 0 ? 0 : (this.#slots - this.#live) / this.#slots;
  }

  /** Approximate bytes held: slot arrays, postings, and the term and rowid maps. */
  get bytes(): number {
    return (
      this.#rowids.length * 28 +
      this.#postingCount * BYTES_PER_POSTING +
      this.#postings.size * BYTES_PER_TERM +
      this.#slotOf.size * 40 +
      this.#neighbourSlots.length * 4 +
      this.#neighbours.linkedCount * 64
    );
  }

  /** Adds or replaces the memory at `rowid` (its session links stay). */
  upsert(rowid: number, scope: string, content: string): void {
    this.#removeSlot(rowid);
    const tokens = indexTokens(content);
    const slot = this.#slots;
    this.#grow(slot + 1);
    this.#slots += 1;
    this.#rowids[slot] = rowid;
    this.#lengths[slot] = Math.min(tokens.length, 65_535);
    this.#scopes[slot] = SCOPE_CODES[scope] ?? 0;
    this.#alive[slot] = 1;
    this.#slotOf.set(rowid, slot);
    this.#live += 1;
    this.#liveLength += this.#lengths[slot] ?? 0;
    const counts = this.#termCounts;
    for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
    for (const [term, count] of counts) this.#addPosting(term, slot, count);
    counts.clear();
    if (this.#neighbours.linkedCount > 0) this.#refreshNeighbours(this.#neighbours.around(rowid));
  }

  /** The memory is deleted: its words and its session links go, so it lends no word to neighbours. */
  remove(rowid: number): void {
    const around = this.#neighbours.around(rowid);
    this.#removeSlot(rowid);
    this.#neighbours.unlink(rowid);
    this.#refreshNeighbours(around);
  }

  /** The memory at `rowid` is linked to the session (again: no change). */
  link(rowid: number, sessionId: string): void {
    this.#neighbours.link(rowid, sessionId);
    // A memory not indexed yet (linked before its text is stored) is refreshed by its upsert.
    if (this.#slotOf.has(rowid)) this.#refreshNeighbours(this.#neighbours.around(rowid));
  }

  /** Re-reads the neighbour slots of these memories (those not indexed are skipped). */
  #refreshNeighbours(rowids: readonly number[]): void {
    if (this.#neighbourSlots.length === 0)
      this.#neighbourSlots = new Int32Array(this.#rowids.length * PLACES).fill(-1);
    for (const rowid of rowids) {
      const slot = this.#slotOf.get(rowid);
      if (slot === undefined) continue;
      this.#neighbourSlots.fill(-1, slot * PLACES, (slot + 1) * PLACES);
      this.#moreNeighbours.delete(slot);
      this.#neighbours.forEachPlace(rowid, (session, place, neighbour) => {
        const neighbourSlot = this.#slotOf.get(neighbour);
        if (neighbourSlot === undefined) return;
        if (session === 0) {
          this.#neighbourSlots[slot * PLACES + place] = neighbourSlot;
          return;
        }
        const more = this.#moreNeighbours.get(slot);
        if (more) more.push(neighbourSlot, place);
        else this.#moreNeighbours.set(slot, [neighbourSlot, place]);
      });
    }
  }

  #removeSlot(rowid: number): void {
    const slot = this.#slotOf.get(rowid);
    if (slot === undefined) return;
    this.#slotOf.delete(rowid);
    this.#alive[slot] = 0;
    this.#live -= 1;
    this.#liveLength -= this.#lengths[slot] ?? 0;
  }

  /**
   * The best `limit` memories for the query parts (raw words, tokenised like the memories): each
   * distinct term's BM25 times its part's weight (a term in two parts counts at the larger),
   * summed; ties by rowid; only memories in `scopes` when given. A memory linked to a session
   * also counts the words of its session neighbours (`NEIGHBOUR_WEIGHTS`), as a second, lighter
   * field of the same BM25 (BM25F): see `#addTermWithNeighbours`.
   */
  rank(parts: readonly WeightedWords[], limit: number, scopes?: readonly string[]): RowRanking {
    if (this.#live === 0 || limit <= 0) return [];
    const terms = new Map<string, { weight: number; neighbours: boolean }>();
    for (const part of parts) {
      for (const word of part.terms) {
        for (const term of indexTokens(word)) {
          const known = terms.get(term);
          if (known && known.weight >= part.weight) continue;
          terms.set(term, { weight: part.weight, neighbours: part.neighbours !== false });
        }
      }
    }
    const withNeighbours = this.#neighbours.linkedCount > 0;
    const scopeMask = scopes
      ? scopes.reduce((mask, scope) => mask | (1 << (SCOPE_CODES[scope] ?? 0)), 0)
      : -1;
    const averageLength = Math.max(1, this.#liveLength / this.#live);
    const lengthFactor = (K1 * B) / averageLength;
    const base = K1 * (1 - B);
    // Locals, not fields, in the loop below: it runs once per posting (~5 ns each).
    const scores = this.#scores;
    const touched = this.#touched;
    const alive = this.#alive;
    const scopeCodes = this.#scopes;
    const lengths = this.#lengths;
    let touchedCount = 0;
    for (const [term, { weight, neighbours }] of terms) {
      const list = this.#postings.get(term);
      if (!list) continue;
      const frequency = this.#liveFrequency(list);
      if (frequency === 0) continue;
      // FTS5's IDF, floored just above 0 for a word in half or more of the person's memories: such
      // a word only orders memories that match nothing better. (Lucene's log(1 + …), which keeps
      // common words worth a little, measured lower on bench:recall: 0.469 vs 0.477 with context.)
      const idf = weight * Math.max(MIN_IDF, Math.log((this.#live - frequency + 0.5) / (frequency + 0.5)));
      const numerator = idf * (K1 + 1);
      // A word in half or more of the person's memories (IDF at its floor) tells nothing about
      // which memory is meant: it is not worth a walk of its neighbours.
      if (neighbours && withNeighbours && idf > weight * MIN_IDF) {
        touchedCount = this.#addTermWithNeighbours(list, numerator, scopeMask, averageLength, touchedCount);
        continue;
      }
      for (let index = 0; index < list.length; index += 2) {
        const slot = list[index] as number;
        if (alive[slot] === 0 || ((1 << (scopeCodes[slot] as number)) & scopeMask) === 0) continue;
        const count = list[index + 1] as number;
        const previous = scores[slot] as number;
        if (previous === 0) touched[touchedCount++] = slot;
        scores[slot] =
          previous + (numerator * count) / (count + base + lengthFactor * (lengths[slot] as number));
      }
    }
    const best = this.#topSlots(touched, touchedCount, limit);
    const ranking = best.map((slot) => ({
      rowid: this.#rowids[slot] as number,
      score: scores[slot] as number,
    }));
    for (let index = 0; index < touchedCount; index += 1) scores[touched[index] as number] = 0;
    return ranking;
  }

  /**
   * One term's BM25F into the scores: each memory's own count, normalised by its length as in
   * BM25, plus each session neighbour's normalised count times its weight, saturated together
   * (k1) once per memory. The IDF stays the memory's own (how many memories say the word), so a
   * word is not made to look common because its neighbours repeat it. Only live neighbours lend
   * words: a deleted memory is out of the sessions and its slot is dead. Returns the new count
   * of touched slots.
   */
  #addTermWithNeighbours(
    list: Postings,
    numerator: number,
    scopeMask: number,
    averageLength: number,
    touchedCount: number,
  ): number {
    const scores = this.#scores;
    const touched = this.#touched;
    const alive = this.#alive;
    const scopeCodes = this.#scopes;
    const frequencies = this.#termFrequencies;
    const termTouched = this.#termTouched;
    const lengths = this.#lengths;
    const neighbourSlots = this.#neighbourSlots;
    const moreNeighbours = this.#moreNeighbours.size > 0 ? this.#moreNeighbours : undefined;
    let termCount = 0;
    let total = touchedCount;
    const lend = (slot: number, amount: number) => {
      if (alive[slot] === 0 || ((1 << (scopeCodes[slot] as number)) & scopeMask) === 0) return;
      if (frequencies[slot] === 0) termTouched[termCount++] = slot;
      frequencies[slot] = (frequencies[slot] as number) + amount;
    };
    for (let index = 0; index < list.length; index += 2) {
      const slot = list[index] as number;
      if (alive[slot] === 0) continue;
      const normalised =
        (list[index + 1] as number) / (1 - B + (B * (lengths[slot] as number)) / averageLength);
      lend(slot, normalised);
      for (let place = 0; place < PLACES; place += 1) {
        const neighbour = neighbourSlots[slot * PLACES + place] as number;
        if (neighbour >= 0) lend(neighbour, (PLACE_WEIGHTS[place] as number) * normalised);
      }
      const more = moreNeighbours?.get(slot);
      if (more) {
        for (let entry = 0; entry < more.length; entry += 2)
          lend(more[entry] as number, (PLACE_WEIGHTS[more[entry + 1] as number] as number) * normalised);
      }
    }
    for (let index = 0; index < termCount; index += 1) {
      const slot = termTouched[index] as number;
      const frequency = frequencies[slot] as number;
      frequencies[slot] = 0;
      const previous = scores[slot] as number;
      if (previous === 0) touched[total++] = slot;
      scores[slot] = previous + (numerator * frequency) / (frequency + K1);
    }
    return total;
  }

  /** The `limit` best of the touched slots, by score then rowid: a bounded min-heap. */
  #topSlots(touched: Int32Array, count: number, limit: number): number[] {
    const scores = this.#scores;
    const rowids = this.#rowids;
    // True when `left` ranks below `right` (lower score, or equal score and larger rowid).
    const worse = (left: number, right: number) =>
      (scores[left] as number) < (scores[right] as number) ||
      (scores[left] === scores[right] && (rowids[left] as number) > (rowids[right] as number));
    const heap: number[] = [];
    for (let index = 0; index < count; index += 1) {
      const slot = touched[index] as number;
      if (heap.length < limit) {
        heap.push(slot);
        let child = heap.length - 1;
        while (child > 0) {
          const parent = (child - 1) >> 1;
          if (!worse(heap[child] as number, heap[parent] as number)) break;
          [heap[child], heap[parent]] = [heap[parent] as number, heap[child] as number];
          child = parent;
        }
      } else {
        // Most slots lose to the heap's worst at once; only a better one pays for the sift.
        const worst = heap[0] as number;
        const score = scores[slot] as number;
        const worstScore = scores[worst] as number;
        if (
          score < worstScore ||
          (score === worstScore && (rowids[slot] as number) > (rowids[worst] as number))
        ) {
          continue;
        }
        heap[0] = slot;
        let parent = 0;
        for (;;) {
          const left = parent * 2 + 1;
          const right = left + 1;
          let smallest = parent;
          if (left < heap.length && worse(heap[left] as number, heap[smallest] as number)) smallest = left;
          if (right < heap.length && worse(heap[right] as number, heap[smallest] as number)) smallest = right;
          if (smallest === parent) break;
          [heap[smallest], heap[parent]] = [heap[parent] as number, heap[smallest] as number];
          parent = smallest;
        }
      }
    }
    return heap.sort((left, right) => (worse(left, right) ? 1 : worse(right, left) ? -1 : 0));
  }

  #liveFrequency(list: Postings): number {
    if (this.#live === this.#slots) return list.length / 2;
    let frequency = 0;
    for (let index = 0; index < list.length; index += 2)
      frequency += this.#alive[list[index] as number] as number;
    return frequency;
  }

  #addPosting(term: string, slot: number, count: number): void {
    const list = this.#postings.get(term);
    if (list) list.push(slot, count);
    else this.#postings.set(term, [slot, count]);
    this.#postingCount += 1;
  }

  #grow(slots: number): void {
    if (slots <= this.#rowids.length) return;
    const capacity = Math.max(slots, this.#rowids.length * 2);
    const grown = <T extends Int32Array | Uint16Array | Uint8Array | Float64Array>(array: T, next: T): T => {
      next.set(array);
      return next;
    };
    this.#rowids = grown(this.#rowids, new Float64Array(capacity));
    this.#lengths = grown(this.#lengths, new Uint16Array(capacity));
    this.#scopes = grown(this.#scopes, new Uint8Array(capacity));
    this.#alive = grown(this.#alive, new Uint8Array(capacity));
    this.#scores = grown(this.#scores, new Float64Array(capacity));
    this.#touched = new Int32Array(capacity);
    this.#termFrequencies = new Float64Array(capacity);
    if (this.#neighbourSlots.length > 0) {
      const neighbourSlots = new Int32Array(capacity * PLACES).fill(-1);
      neighbourSlots.set(this.#neighbourSlots);
      this.#neighbourSlots = neighbourSlots;
    }
    this.#termTouched = new Int32Array(capacity);
  }
}
