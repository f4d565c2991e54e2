import { ENGLISH_STOP_WORDS } from './english-stop-words.ts';

const STOP_WORDS = new Set<string>(ENGLISH_STOP_WORDS);
const WORD_PATTERN = /[\p{L}\p{N}]+/gu;
const MAX_QUERY_TERMS = 64;

/**
 * Lower-cased word tokens with a light English suffix fold ("prefers" → "prefer",
 * "cooking" → "cook"), used for the Qdrant sparse BM25 vectors and for FTS5 queries. Light on
 * purpose: a stemmer that merges too much hurts precision more than it helps recall here.
 */
export function lexicalTerms(text: string): string[] {
  const words = text.normalize('NFKC').toLowerCase().match(WORD_PATTERN) ?? [];
  return words.map(foldSuffix);
}

/**
 * Distinct query terms, at most 64, in first-seen order, split into content words and English
 * stop words (the `stopword` package's list: "what", "my", "did"…). Stop words match most
 * memories and say little about which one is meant, so searches weigh them far below the rest.
 */
export function queryTermGroups(text: string): { content: string[]; stop: string[] } {
  const content = new Set<string>();
  const stop = new Set<string>();
  for (const term of text.normalize('NFKC').toLowerCase().match(WORD_PATTERN) ?? []) {
    (STOP_WORDS.has(term) ? stop : content).add(term);
    if (content.size + stop.size >= MAX_QUERY_TERMS) break;
  }
  return { content: [...content], stop: [...stop] };
}

/** Distinct query terms, at most 64, in first-seen order (stop words included). */
export function queryTerms(text: string): string[] {
  const { content, stop } = queryTermGroups(text);
  return [...content, ...stop];
}

function foldSuffix(word: string): string {
  if (word.length <= 4 || /\d/u.test(word)) return word;
  if (word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.endsWith('ing') && word.length > 5) return word.slice(0, -3);
  if (word.endsWith('ed') && word.length > 5) return word.slice(0, -2);
  if (word.endsWith('es') && /(ss|x|ch|sh)es$/u.test(word)) return word.slice(0, -2);
  if (word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}
