/**
 * o200k_base's pre-tokenisation: text is cut into pieces (a word with its leading space or
 * punctuation mark, up to three digits, a punctuation run, a whitespace run) and each piece is
 * byte-pair encoded on its own. This is the pattern tiktoken publishes for o200k_base, as
 * gpt-tokenizer 4 writes it for JavaScript (`src/encodingParams/constants.ts`); any difference,
 * even in a character class, changes counts, which `o200k-pre-tokenizer.test.ts` and `o200k-tokenizer.test.ts` would catch.
 * `u` makes `\p{…}` work and makes the pattern step over whole code points, so a surrogate pair
 * stays one character and a lone surrogate is a character of its own (neither letter nor digit).
 */
const CONTRACTION = "(?:'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE]))?";
export const O200K_PIECE = [
  String.raw`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+${CONTRACTION}`,
  String.raw`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*${CONTRACTION}`,
  String.raw`\p{N}{1,3}`,
  String.raw` ?[^\s\p{L}\p{N}]+[\r\n/]*`,
  String.raw`\s*[\r\n]+`,
  String.raw`\s+(?!\S)`,
  String.raw`\s+`,
].join('|');
const O200K_PIECE_PATTERN = new RegExp(O200K_PIECE, 'uy');

/**
 * Calls `onPiece(start, end)` for each piece of `text`, in order. Sticky matching with `test`
 * gives the end of each piece without building a match array or a substring per piece.
 * Every character starts some alternative (it is a letter, a digit, whitespace or something
 * else), so a piece always begins where the last one ended; were that ever not so, the
 * character is skipped as `matchAll` (what gpt-tokenizer iterates with) would skip it.
 */
export function forEachO200kPiece(text: string, onPiece: (start: number, end: number) => void): void {
  const pattern = O200K_PIECE_PATTERN;
  let start = 0;
  while (start < text.length) {
    pattern.lastIndex = start;
    if (pattern.test(text)) {
      onPiece(start, pattern.lastIndex);
      start = pattern.lastIndex;
    } else {
      start += (text.codePointAt(start) as number) > 0xffff ? 2 : 1;
    }
  }
}
