const WORD_PATTERN = /[\p{L}\p{N}]+/gu;

/**
 * A deterministic stand-in for a real embedding: each word is hashed into one of `dimensions`
 * buckets (with a hashed sign), and the vector is L2-normalised. Texts that share words get a
 * high cosine similarity, texts with no words in common get one near zero, so similarity-based
 * code (memory deduplication, dense search) behaves plausibly without a model.
 */
export function hashedEmbedding(text: string, dimensions: number): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  const words = text.toLowerCase().match(WORD_PATTERN) ?? [];
  for (const word of words) {
    const hash = fnv1a(word);
    const index = hash % dimensions;
    const sign = hash >>> 31 === 0 ? 1 : -1;
    vector[index] = (vector[index] ?? 0) + sign;
  }
  let sumOfSquares = 0;
  for (const value of vector) sumOfSquares += value * value;
  if (sumOfSquares === 0) {
    // No words: a fixed unit vector, so consumers never see NaN from a zero-length vector.
    vector[0] = 1;
    return vector;
  }
  const norm = Math.sqrt(sumOfSquares);
  return vector.map((value) => value / norm);
}

function fnv1a(word: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < word.length; index++) {
    hash ^= word.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
