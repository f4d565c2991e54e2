import { ENGLISH_STOP_WORDS, lexicalTerms } from '@nexus/memory';
import { createPlainBm25 } from '../../packages/memory/bench/plain-bm25.ts';

const STOP_WORDS = new Set(ENGLISH_STOP_WORDS);

/**
 * The LoCoMo protocol's plain BM25 (the shared data folder's README): Okapi BM25, k1 1.2, b 0.75,
 * English stop words dropped, light suffix stemming (`lexicalTerms`), statistics over the one
 * person's memories. Ties keep the documents' insertion order.
 */
export function createStemmedBm25(documents: ReadonlyArray<{ id: string; text: string }>) {
  return createPlainBm25(documents, terms);
}

function terms(text: string): string[] {
  const words =
    text
      .normalize('NFKC')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? [];
  return lexicalTerms(words.filter((word) => !STOP_WORDS.has(word)).join(' '));
}
