/**
 * A plain Okapi BM25 (k1 = 1.2, b = 0.75), by default over lower-cased words with no stemming and
 * no stop words: the baseline `pnpm bench:recall` compares Nexus with. `tokenise` changes only how
 * text becomes terms (the LoCoMo bench's baseline stems and drops stop words). Ties keep the
 * documents' insertion order.
 */
export function createPlainBm25(
  documents: ReadonlyArray<{ id: string; text: string }>,
  tokenise: (text: string) => string[] = words,
) {
  const k1 = 1.2;
  const b = 0.75;
  const tokens = documents.map((document) => tokenise(document.text));
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
      const terms = [...new Set(tokenise(query))];
      const scored = documents.map((document, index) => {
        const list = tokens[index] ?? [];
        let score = 0;
        for (const term of terms) {
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

function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}
