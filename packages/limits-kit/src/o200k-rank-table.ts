/**
 * A byte-pair rank table (`.tiktoken`: one `<base64 token> <rank>` line per token) kept in three
 * typed arrays instead of a Map of 200,000 strings: the table lives in ArrayBuffers, outside the
 * V8 heap the garbage collector walks, and takes about 4 MB instead of about 20 MB.
 *
 * - `tokenBytes`: every token's bytes, back to back, in rank order;
 * - `tokenStarts`: where rank r's bytes start (`tokenStarts[r + 1]` is where they end);
 * - `slots`: an open-addressing hash table (linear probing) from a token's bytes to its rank,
 *   -1 where empty, at most half full so that a miss ends after a probe or two.
 */
export interface RankTable {
  /** The rank of exactly `source[start..end)`, or -1 when those bytes are not a token. */
  rankOf(source: Uint8Array, start: number, end: number): number;
  /** Length in bytes of the longest token: longer byte runs need no lookup. */
  readonly longestToken: number;
  /** Ranks in the table (the highest rank + 1). */
  readonly size: number;
  /** Bytes the three arrays hold, for the measurements in docs/deployment.md. */
  readonly byteLength: number;
}

const NEWLINE = 0x0a;
const SPACE = 0x20;
const CARRIAGE_RETURN = 0x0d;
const EQUALS = 0x3d;
const EMPTY = -1;

/** Base64 digit values by character code; -1 for characters that are not digits. */
const BASE64_DIGITS = (() => {
  const digits = new Int8Array(128).fill(-1);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  for (let value = 0; value < alphabet.length; value += 1) digits[alphabet.charCodeAt(value)] = value;
  return digits;
})();

/**
 * Parses the file's bytes straight into the typed arrays, in three passes over it (sizes, token
 * positions, bytes) so that nothing else is allocated: no string or Buffer per line, and no
 * temporary arrays, which the allocator would keep as RSS after they are freed. Ranks need not be
 * in order or contiguous (a missing rank is an empty token that nothing matches), but each must
 * be new.
 */
export function parseRankTable(file: Uint8Array): RankTable {
  // Pass 1: check every line, find the highest rank and the bytes all tokens take.
  let highestRank = -1;
  let totalBytes = 0;
  let longestToken = 0;
  let entries = 0;
  forEachLine(file, (start, space, end, lineNumber) => {
    const length = base64Length(file, start, space);
    const rank = parseRank(file, space + 1, end);
    if (length <= 0 || rank < 0) throw invalidLine(file, start, end, lineNumber);
    highestRank = Math.max(highestRank, rank);
    totalBytes += length;
    entries += 1;
    longestToken = Math.max(longestToken, length);
  });
  const size = highestRank + 1;

  // Pass 2: each rank's length, then where its bytes start (tokens laid out in rank order).
  const tokenStarts = new Uint32Array(size + 1);
  forEachLine(file, (start, space, end) => {
    const rank = parseRank(file, space + 1, end);
    if (tokenStarts[rank + 1] !== 0) throw new Error(`Invalid tiktoken ranks: rank ${rank} appears twice`);
    tokenStarts[rank + 1] = base64Length(file, start, space);
  });
  for (let rank = 0; rank < size; rank += 1)
    tokenStarts[rank + 1] = (tokenStarts[rank + 1] as number) + (tokenStarts[rank] as number);

  // Pass 3: the bytes.
  const tokenBytes = new Uint8Array(totalBytes);
  forEachLine(file, (start, space, end) => {
    decodeBase64(file, start, space, tokenBytes, tokenStarts[parseRank(file, space + 1, end)] as number);
  });

  return hashRanks(tokenBytes, tokenStarts, entries, longestToken);
}

/**
 * Builds the hash table and the lookup. A function of its own so that the lookup's closure holds
 * the three arrays only: a closure created inside `parseRankTable` would share its scope, and
 * with it keep the whole 3.6 MB file alive.
 */
function hashRanks(
  tokenBytes: Uint8Array,
  tokenStarts: Uint32Array,
  entries: number,
  longestToken: number,
): RankTable {
  const size = tokenStarts.length - 1;
  const slots = new Int32Array(tableCapacity(entries)).fill(EMPTY);
  const mask = slots.length - 1;
  for (let rank = 0; rank < size; rank += 1) {
    const start = tokenStarts[rank] as number;
    const end = tokenStarts[rank + 1] as number;
    if (end === start) continue;
    let slot = hashBytes(tokenBytes, start, end) & mask;
    while (slots[slot] !== EMPTY) {
      if (sameBytes(tokenBytes, tokenStarts, slots[slot] as number, tokenBytes, start, end))
        throw new Error(`Invalid tiktoken ranks: ranks ${slots[slot]} and ${rank} are the same bytes`);
      slot = (slot + 1) & mask;
    }
    slots[slot] = rank;
  }

  return {
    rankOf(source, start, end) {
      if (end - start > longestToken || end <= start) return EMPTY;
      let slot = hashBytes(source, start, end) & mask;
      for (;;) {
        const rank = slots[slot] as number;
        if (rank === EMPTY || sameBytes(tokenBytes, tokenStarts, rank, source, start, end)) return rank;
        slot = (slot + 1) & mask;
      }
    },
    longestToken,
    size,
    byteLength: tokenBytes.byteLength + tokenStarts.byteLength + slots.byteLength,
  };
}

/** FNV-1a over the bytes, its high bits folded in because the table index takes the low ones. */
function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  let hash = 0x811c9dc5;
  for (let index = start; index < end; index += 1)
    hash = Math.imul(hash ^ (bytes[index] as number), 0x01000193);
  return hash ^ (hash >>> 15);
}

function sameBytes(
  tokenBytes: Uint8Array,
  tokenStarts: Uint32Array,
  rank: number,
  source: Uint8Array,
  start: number,
  end: number,
): boolean {
  const tokenStart = tokenStarts[rank] as number;
  if ((tokenStarts[rank + 1] as number) - tokenStart !== end - start) return false;
  for (let offset = 0; offset < end - start; offset += 1)
    if (tokenBytes[tokenStart + offset] !== source[start + offset]) return false;
  return true;
}

/** The power of two at least twice the entries. */
function tableCapacity(entries: number): number {
  let capacity = 1;
  while (capacity < entries * 2) capacity *= 2;
  return capacity;
}

/**
 * Calls `onLine(start, space, end, lineNumber)` for each non-empty line (`\r\n` endings too), where
 * `space` separates the token from its rank; throws for a line without one.
 */
function forEachLine(
  file: Uint8Array,
  onLine: (start: number, space: number, end: number, lineNumber: number) => void,
): void {
  let lineStart = 0;
  let lineNumber = 0;
  while (lineStart < file.length) {
    let lineEnd = file.indexOf(NEWLINE, lineStart);
    if (lineEnd === -1) lineEnd = file.length;
    lineNumber += 1;
    let contentEnd = lineEnd;
    if (contentEnd > lineStart && file[contentEnd - 1] === CARRIAGE_RETURN) contentEnd -= 1;
    if (contentEnd > lineStart) {
      const space = file.indexOf(SPACE, lineStart);
      if (space === -1 || space >= contentEnd) throw invalidLine(file, lineStart, contentEnd, lineNumber);
      onLine(lineStart, space, contentEnd, lineNumber);
    }
    lineStart = lineEnd + 1;
  }
}

/** How many bytes the base64 in `file[start..end)` decodes to, or -1 if it is not base64. */
function base64Length(file: Uint8Array, start: number, end: number): number {
  let digits = 0;
  let index = start;
  for (; index < end; index += 1) {
    const code = file[index] as number;
    if (code === EQUALS) break;
    if (code >= 128 || (BASE64_DIGITS[code] as number) < 0) return -1;
    digits += 1;
  }
  for (; index < end; index += 1) if (file[index] !== EQUALS) return -1;
  return Math.floor((digits * 6) / 8);
}

/** Decodes `file[start..end)`, checked by `base64Length`, into `target` at `at`. */
function decodeBase64(file: Uint8Array, start: number, end: number, target: Uint8Array, at: number): void {
  let bits = 0;
  let bitCount = 0;
  for (let index = start; index < end; index += 1) {
    const code = file[index] as number;
    if (code === EQUALS) break;
    const digit = BASE64_DIGITS[code] as number;
    bits = ((bits << 6) | digit) & 0xffffff;
    bitCount += 6;
    if (bitCount >= 8) {
      bitCount -= 8;
      target[at] = (bits >>> bitCount) & 0xff;
      at += 1;
    }
  }
}

/** The decimal rank in `file[start..end)`, or -1 if it is not one. */
function parseRank(file: Uint8Array, start: number, end: number): number {
  if (end <= start || end - start > 9) return -1;
  let rank = 0;
  for (let index = start; index < end; index += 1) {
    const digit = (file[index] as number) - 0x30;
    if (digit < 0 || digit > 9) return -1;
    rank = rank * 10 + digit;
  }
  return rank;
}

function invalidLine(file: Uint8Array, start: number, end: number, lineNumber: number): Error {
  const text = Buffer.from(file.buffer, file.byteOffset + start, Math.min(end - start, 80)).toString(
    'latin1',
  );
  return new Error(`Invalid tiktoken line ${lineNumber}: "${text}" (expected "<base64 token> <rank>")`);
}
