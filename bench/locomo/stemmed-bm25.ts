import { ENGLISH_STOP_WORDS, lexicalTerms } from '@nexus/memory';

const STOP_WORDS = new Set(ENGLISH_STOP_WORDS);

/**
 * The LoCoMo protocol's plain BM25 (the shared data folder's README): Okapi BM25, k1 1.2, b 0.75,
 * English stop words dropped, light suffix stemming (`lexicalTerms`), statistics over the one
 * person's memories. Ties keep the documents' insertion order.
 */
export function createStemmedBm25(documents: ReadonlyArray<{ id: string; text: string }>) {
  const k1 = 1.2;
  const b = 0.75;
  const tokens = documents.map((document) => terms(document.text));
  const averageLength = tokens.reduce((sum, list) => sum + list.length, 0) / Math.max(1, tokens.length);
  const documentFrequency = new Map<string, number>();
  for (const list of tokens) {
    for (const term of new Set(list)) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
  }
  const count = documents.length;
  const idf = (term: string) => {
    const frequency = documentFrequency.get(term) ?? 0;
    return Math.log(1 + (count - frequency + 0.5) / (frequency + 0.5));
  };
  return {
    /** Ids of the matching documents, best first. */
    search(query: string, limit: number): string[] {
      const queryTerms = [...new Set(terms(query))];
      const scored = documents.map((document, index) => {
        const list = tokens[index] ?? [];
        let score = 0;
        for (const term of queryTerms) {
          const frequency = list.filter((word) => word === term).length;
          if (frequency === 0) continue;
          score +=
            (idf(term) * frequency * (k1 + 1)) /
            (frequency + k1 * (1 - b + (b * list.length) / averageLength));
        }
        return { id: document.id, score, index };
      });
      return scored
        .filter((item) => item.score > 0)
        .sort((left, right) => right.score - left.score || left.index - right.index)
        .slice(0, limit)
        .map((item) => item.id);
    },
  };
}

function terms(text: string): string[] {
  const words =
    text
      .normalize('NFKC')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? [];
  return lexicalTerms(words.filter((word) => !STOP_WORDS.has(word)).join(' '));
}
