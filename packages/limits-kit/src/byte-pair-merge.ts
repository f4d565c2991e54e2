/** The rank of `bytes[start..end)` as one token, or -1 when it is none. */
export type PairRank = (bytes: Uint8Array, start: number, end: number) => number;

const NO_MERGE = 0x7fffffff;
/**
 * Up to this many bytes a piece is merged by scanning for the lowest rank each round, as tiktoken
 * does: quadratic, but fastest for the short pieces words are. Longer pieces (a run of 100,000
 * letters with no space is one piece) go through a heap instead, O(n log n).
 */
const SCAN_LIMIT = 64;
/** Work arrays are kept between calls up to this many bytes; a longer piece gets its own. */
const KEPT_WORK_BYTES = 4096;

/**
 * How many tokens byte-pair encoding makes of `bytes[0..length)`: tiktoken's `_byte_pair_merge`.
 * Starting from single bytes, repeatedly merge the adjacent pair whose concatenation has the
 * lowest rank (the leftmost if several have it) until no adjacent pair is a token. Only the
 * number of parts is returned: the gateway never needs the tokens themselves.
 */
export function countBytePairParts(bytes: Uint8Array, length: number, pairRank: PairRank): number {
  if (length <= 1) return length;
  return length <= SCAN_LIMIT
    ? mergeByScanning(bytes, length, pairRank)
    : mergeWithHeap(bytes, length, pairRank);
}

const scanStarts = new Int32Array(SCAN_LIMIT + 1);
const scanRanks = new Int32Array(SCAN_LIMIT + 1);

function mergeByScanning(bytes: Uint8Array, length: number, pairRank: PairRank): number {
  const starts = scanStarts;
  const ranks = scanRanks;
  // ranks[i] is the rank of parts i and i + 1 together.
  const rankAt = (part: number, parts: number): number => {
    if (part + 2 > parts) return NO_MERGE;
    const rank = pairRank(bytes, starts[part] as number, starts[part + 2] as number);
    return rank < 0 ? NO_MERGE : rank;
  };
  let parts = length;
  for (let part = 0; part <= length; part += 1) starts[part] = part;
  for (let part = 0; part < length; part += 1) ranks[part] = rankAt(part, parts);
  while (parts > 1) {
    let lowest = NO_MERGE;
    let merged = -1;
    for (let part = 0; part < parts - 1; part += 1) {
      if ((ranks[part] as number) < lowest) {
        lowest = ranks[part] as number;
        merged = part;
      }
    }
    if (merged === -1) break;
    // Part merged + 1 joins part merged: its start and its pair rank go.
    starts.copyWithin(merged + 1, merged + 2, parts + 1);
    ranks.copyWithin(merged + 1, merged + 2, parts);
    parts -= 1;
    ranks[merged] = rankAt(merged, parts);
    if (merged > 0) ranks[merged - 1] = rankAt(merged - 1, parts);
  }
  return parts;
}

/** Heap keys hold a rank and a byte position: rank · 2³² + position, exact in a double. */
const POSITIONS = 2 ** 32;
let keptNext = new Int32Array(0);
let keptPrevious = new Int32Array(0);
let keptRanks = new Int32Array(0);
let keptHeap = new Float64Array(0);

/**
 * The same merge order as scanning, kept in a heap of (rank, position) with parts as a linked
 * list over byte positions. An entry goes stale when its part is merged away or its rank changes;
 * stale entries are recognised when they come up and skipped. Every live pair always has an
 * entry, so the entry that comes up first is the lowest rank, leftmost among equals: the pair
 * scanning would pick.
 */
function mergeWithHeap(bytes: Uint8Array, length: number, pairRank: PairRank): number {
  const kept = length <= KEPT_WORK_BYTES;
  if (kept && keptNext.length < length + 1) {
    keptNext = new Int32Array(KEPT_WORK_BYTES + 1);
    keptPrevious = new Int32Array(KEPT_WORK_BYTES + 1);
    keptRanks = new Int32Array(KEPT_WORK_BYTES + 1);
    keptHeap = new Float64Array(3 * KEPT_WORK_BYTES);
  }
  // Part p spans bytes [p, next[p]); previous[p] is the part before it; ranks[p] pairs p with next.
  const next = kept ? keptNext : new Int32Array(length + 1);
  const previous = kept ? keptPrevious : new Int32Array(length + 1);
  const ranks = kept ? keptRanks : new Int32Array(length + 1);
  // Each merge pushes at most two entries: at most length - 1 + 2 · (length - 1) in all.
  const heap = kept ? keptHeap : new Float64Array(3 * length);
  let heapSize = 0;

  const push = (key: number): void => {
    let child = heapSize;
    heapSize += 1;
    while (child > 0) {
      const parent = (child - 1) >> 1;
      if ((heap[parent] as number) <= key) break;
      heap[child] = heap[parent] as number;
      child = parent;
    }
    heap[child] = key;
  };
  const pop = (): number => {
    const top = heap[0] as number;
    heapSize -= 1;
    const last = heap[heapSize] as number;
    let parent = 0;
    for (;;) {
      let child = 2 * parent + 1;
      if (child >= heapSize) break;
      if (child + 1 < heapSize && (heap[child + 1] as number) < (heap[child] as number)) child += 1;
      if ((heap[child] as number) >= last) break;
      heap[parent] = heap[child] as number;
      parent = child;
    }
    heap[parent] = last;
    return top;
  };
  const rankPair = (part: number): void => {
    const second = next[part] as number;
    const end = second < length ? (next[second] as number) : length;
    const rank = second < length ? pairRank(bytes, part, end) : -1;
    ranks[part] = rank < 0 ? NO_MERGE : rank;
    if (rank >= 0) push(rank * POSITIONS + part);
  };

  for (let part = 0; part < length; part += 1) {
    next[part] = part + 1;
    previous[part] = part - 1;
  }
  for (let part = 0; part < length; part += 1) rankPair(part);

  let parts = length;
  while (heapSize > 0) {
    const key = pop();
    const rank = Math.floor(key / POSITIONS);
    const part = key - rank * POSITIONS;
    // Stale: the part was merged into the one before it (its rank was cleared) or re-ranked.
    if (ranks[part] !== rank) continue;
    const second = next[part] as number;
    const after = next[second] as number;
    next[part] = after;
    if (after < length) previous[after] = part;
    ranks[second] = NO_MERGE;
    parts -= 1;
    rankPair(part);
    if (part > 0) rankPair(previous[part] as number);
  }
  return parts;
}
