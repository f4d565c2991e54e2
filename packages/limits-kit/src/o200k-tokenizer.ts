import { isUtf8 } from 'node:buffer';
import { countBytePairParts } from './byte-pair-merge.ts';
import { forEachO200kPiece } from './o200k-pre-tokenizer.ts';
import type { RankTable } from './o200k-rank-table.ts';

/** The UTF-8 encoding of U+FEFF, the byte-order mark. */
const BOM_0 = 0xef;
const BOM_1 = 0xbb;
const BOM_2 = 0xbf;
/** Pieces are encoded into one buffer kept between calls up to this size; longer ones get their own. */
const KEPT_PIECE_BYTES = 16 * 1024;

/**
 * Counts o200k_base tokens of `text`, special-token text such as `<|endoftext|>` as plain text,
 * exactly as gpt-tokenizer 4's `countTokens(text, { disallowedSpecial: new Set() })` does:
 * cut the text into pieces, take a piece that is one token whole, byte-pair merge the others.
 *
 * gpt-tokenizer looks tokens up by string. Tokens that start with a byte-order mark are stored
 * there as bytes, never as strings, which changes counts; copied here (the exactness test fails
 * without either half):
 * - a whole piece never matches such a token;
 * - a merge candidate that is valid UTF-8 is decoded by a `TextDecoder` that drops a leading
 *   byte-order mark, so it takes the rank of what follows the mark.
 * A lone surrogate is encoded as U+FFFD, as `TextEncoder` does. (gpt-tokenizer's whole-piece
 * lookup by string never matches a piece holding one; looking its bytes up instead gives the
 * same count because every o200k token that holds U+FFFD merges back into itself, which
 * `o200k-tokenizer.test.ts` checks.)
 */
export function createO200kCountTokens(table: RankTable): (text: string) => number {
  let kept = new Uint8Array(1024);

  const mergeRank = (bytes: Uint8Array, start: number, end: number): number => {
    if (!startsWithBom(bytes, start, end)) return table.rankOf(bytes, start, end);
    if (!isUtf8(bytes.subarray(start, end))) return table.rankOf(bytes, start, end);
    // Decoded, the mark is gone; a second mark would stay, and no token string starts with one.
    return startsWithBom(bytes, start + 3, end) ? -1 : table.rankOf(bytes, start + 3, end);
  };

  return (text) => {
    let count = 0;
    forEachO200kPiece(text, (start, end) => {
      const capacity = 3 * (end - start);
      if (capacity > kept.length && capacity <= KEPT_PIECE_BYTES) kept = new Uint8Array(KEPT_PIECE_BYTES);
      const bytes = capacity <= kept.length ? kept : new Uint8Array(capacity);
      const length = encodeUtf8(text, start, end, bytes);
      if (!startsWithBom(bytes, 0, length) && table.rankOf(bytes, 0, length) >= 0) count += 1;
      else count += countBytePairParts(bytes, length, mergeRank);
    });
    return count;
  };
}

function startsWithBom(bytes: Uint8Array, start: number, end: number): boolean {
  return (
    end - start >= 3 && bytes[start] === BOM_0 && bytes[start + 1] === BOM_1 && bytes[start + 2] === BOM_2
  );
}

/**
 * Writes `text[start..end)` as UTF-8 into `target` (room for 3 bytes per UTF-16 unit), a lone
 * surrogate as U+FFFD, and returns the byte length. Hand-written because pieces are a few
 * characters, and a `TextEncoder.encodeInto` call per piece costs more than the encoding.
 */
export function encodeUtf8(text: string, start: number, end: number, target: Uint8Array): number {
  let at = 0;
  for (let index = start; index < end; index += 1) {
    let code = text.charCodeAt(index);
    if (code < 0x80) {
      target[at++] = code;
    } else if (code < 0x800) {
      target[at++] = 0xc0 | (code >> 6);
      target[at++] = 0x80 | (code & 0x3f);
    } else {
      if (code >= 0xd800 && code <= 0xdfff) {
        const low = index + 1 < end ? text.charCodeAt(index + 1) : 0;
        if (code <= 0xdbff && low >= 0xdc00 && low <= 0xdfff) {
          code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
          index += 1;
          target[at++] = 0xf0 | (code >> 18);
          target[at++] = 0x80 | ((code >> 12) & 0x3f);
          target[at++] = 0x80 | ((code >> 6) & 0x3f);
          target[at++] = 0x80 | (code & 0x3f);
          continue;
        }
        code = 0xfffd;
      }
      target[at++] = 0xe0 | (code >> 12);
      target[at++] = 0x80 | ((code >> 6) & 0x3f);
      target[at++] = 0x80 | (code & 0x3f);
    }
  }
  return at;
}
