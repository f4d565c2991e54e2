import { BM25_PARAMETERS, indexTokens, lexicalQueryParts, lexicalTerms } from '@nexus/memory';

export interface SparseVector {
  indices: number[];
  values: number[];
}

/**
 * Which words a collection's sparse vectors are made of. `stems`: the embedded store's own tokens
 * (`indexTokens`: FTS5's letters and digits, diacritics removed, Porter stems), so both stores
 * match the same words. `light-fold`: the lower-cased words with a light suffix fold
 * (`lexicalTerms`) that collections created before carry; such a collection is queried with its
 * own terms until it is re-indexed into a new one (`nexus memory reindex`).
 */
export type SparseTerms = 'stems' | 'light-fold';

/** BM25 term-frequency saturation and length normalisation; Qdrant's IDF modifier adds the IDF. */
const K1 = BM25_PARAMETERS.k1;
const B = BM25_PARAMETERS.b;
/** Typical memory length in terms; memories are one-line facts, so a fixed average is close enough. */
const AVERAGE_LENGTH = 12;

/**
 * The document side of BM25 as a sparse vector: for each term, `tf·(k1+1) / (tf + k1·(1−b+b·len/avg))`.
 * With the collection's `modifier: idf`, Qdrant multiplies in each term's IDF at query time, so
 * the dot product with a query of ones is the BM25 score.
 */
export function sparseDocumentVector(text: string, kind: SparseTerms = 'stems'): SparseVector {
  const terms = termsOf(text, kind);
  const frequencies = new Map<number, number>();
  for (const term of terms) {
    const index = termIndex(term);
    frequencies.set(index, (frequencies.get(index) ?? 0) + 1);
  }
  const lengthNorm = 1 - B + (B * terms.length) / AVERAGE_LENGTH;
  const indices = [...frequencies.keys()];
  return {
    indices,
    values: indices.map((index) => {
      const frequency = frequencies.get(index) ?? 0;
      return (frequency * (K1 + 1)) / (frequency + K1 * lengthNorm);
    }),
  };
}

/**
 * The query side: each distinct term once, weighted as the embedded store weighs it
 * (`lexicalQueryParts`: the message's words 1, its stop words and the recent turns' words less).
 */
export function sparseQueryVector(text: string, contextText = '', kind: SparseTerms = 'stems'): SparseVector {
  const weights = new Map<number, number>();
  for (const part of lexicalQueryParts(text, contextText)) {
    for (const term of termsOf(part.terms.join(' '), kind)) {
      const index = termIndex(term);
      if (weights.size >= 64 && !weights.has(index)) continue;
      weights.set(index, Math.max(weights.get(index) ?? 0, part.weight));
    }
  }
  const indices = [...weights.keys()];
  return { indices, values: indices.map((index) => weights.get(index) ?? 1) };
}

function termsOf(text: string, kind: SparseTerms): string[] {
  return kind === 'stems' ? indexTokens(text) : lexicalTerms(text);
}

/** FNV-1a of the term: a stable u32 index, no vocabulary to keep in sync. */
export function termIndex(term: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < term.length; index++) {
    hash ^= term.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
