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

/** Work arrays kept between calls for pieces up to KEPT_WORK_BYTES (one block, five views). */
let kept: Int32Array[] = [];

/**
 * The same merge order as scanning, with parts as a linked list over byte positions and the
 * mergeable pairs in a binary heap ordered by (rank, position): the top is the lowest rank,
 * leftmost among equals, which is the pair scanning would pick. The heap is indexed (each part
 * knows its slot), so a pair whose rank changes moves in place and a merged-away part leaves it:
 * five int arrays, 20 bytes per byte of the piece, however many merges there are.
 */
function mergeWithHeap(bytes: Uint8Array, length: number, pairRank: PairRank): number {
  if (length <= KEPT_WORK_BYTES && kept.length === 0) kept = workArrays(KEPT_WORK_BYTES);
  // Part p spans bytes [p, next[p]); previous[p] is the part before it; ranks[p] pairs p with
  // the part after it; heap holds parts, slot[p] is p's index in it (-1 when not in it).
  const [next, previous, ranks, heap, slot] = (length <= KEPT_WORK_BYTES ? kept : workArrays(length)) as [
    Int32Array,
    Int32Array,
    Int32Array,
    Int32Array,
    Int32Array,
  ];
  let heapSize = 0;

  const before = (left: number, right: number): boolean => {
    const leftRank = ranks[left] as number;
    const rightRank = ranks[right] as number;
    return leftRank < rightRank || (leftRank === rightRank && left < right);
  };
  const place = (part: number, index: number): void => {
    heap[index] = part;
    slot[part] = index;
  };
  const siftUp = (part: number, index: number): void => {
    while (index > 0) {
      const parent = (index - 1) >> 1;
      const above = heap[parent] as number;
      if (!before(part, above)) break;
      place(above, index);
      index = parent;
    }
    place(part, index);
  };
  const siftDown = (part: number, index: number): void => {
    for (;;) {
      let child = 2 * index + 1;
      if (child >= heapSize) break;
      if (child + 1 < heapSize && before(heap[child + 1] as number, heap[child] as number)) child += 1;
      const below = heap[child] as number;
      if (!before(below, part)) break;
      place(below, index);
      index = child;
    }
    place(part, index);
  };
  const remove = (part: number): void => {
    const index = slot[part] as number;
    slot[part] = -1;
    heapSize -= 1;
    if (index === heapSize) return;
    const last = heap[heapSize] as number;
    siftDown(last, index);
    siftUp(last, slot[last] as number);
  };
  /** Re-ranks the pair that starts at `part` and moves it in (or out of) the heap. */
  const rerank = (part: number): void => {
    const second = next[part] as number;
    const rank = second < length ? pairRank(bytes, part, next[second] as number) : -1;
    const wasIn = (slot[part] as number) >= 0;
    if (rank < 0) {
      ranks[part] = NO_MERGE;
      if (wasIn) remove(part);
      return;
    }
    const old = ranks[part] as number;
    ranks[part] = rank;
    if (!wasIn) {
      heapSize += 1;
      siftUp(part, heapSize - 1);
    } else if (rank < old) siftUp(part, slot[part] as number);
    else siftDown(part, slot[part] as number);
  };

  for (let part = 0; part < length; part += 1) {
    next[part] = part + 1;
    previous[part] = part - 1;
    slot[part] = -1;
  }
  next[length] = length;
  for (let part = 0; part < length; part += 1) rerank(part);

  let parts = length;
  while (heapSize > 0) {
    const part = heap[0] as number;
    const second = next[part] as number;
    const after = next[second] as number;
    // The second part joins the first: it leaves the list and the heap.
    next[part] = after;
    if (after < length) previous[after] = part;
    if ((slot[second] as number) >= 0) remove(second);
    parts -= 1;
    rerank(part);
    if (part > 0) rerank(previous[part] as number);
  }
  return parts;
}

function workArrays(length: number): Int32Array[] {
  const block = new Int32Array(5 * (length + 1));
  return Array.from({ length: 5 }, (_, index) =>
    block.subarray(index * (length + 1), (index + 1) * (length + 1)),
  );
}
