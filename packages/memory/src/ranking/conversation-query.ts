import { queryTermGroups } from '../lexical/lexical-terms.ts';

/**
 * How much a word of the recent turns counts against a word of the message itself. Below 1 so
 * that the message decides when it names its subject ("what does my sister do?"); above 0 so a
 * follow-up that does not ("and what does she do?") is found through the turns before it.
 */
export const CONTEXT_WEIGHT = 0.4;

/**
 * How much a stop word of the message counts ("what", "my"…): little, so they only order
 * memories that match nothing better, never lift a memory above one that shares a real word.
 */
export const STOP_WORD_WEIGHT = 0.1;

/** Only the latest turns: older ones are usually about something else by now. */
const CONTEXT_TURNS = 4;

export interface ConversationQuery {
  /** The message: its words count fully. */
  text: string;
  /** The latest recent turns, oldest first, one per line: their words count `CONTEXT_WEIGHT`. */
  contextText: string;
  /** What the dense channel embeds: the turns then the message, so a pronoun has its subject. */
  embeddingText: string;
}

/** The search query of a message in a conversation. */
export function conversationQuery(query: string, recentTurns: readonly string[] = []): ConversationQuery {
  const turns = recentTurns.slice(-CONTEXT_TURNS).filter((turn) => turn.trim() !== '');
  const contextText = turns.join('\n');
  return {
    text: query,
    contextText,
    embeddingText: contextText === '' ? query : `${contextText}\n${query}`,
  };
}

/**
 * Sums per-id scores of several lexical rankings, each times its weight, best first; equal sums
 * keep first-seen order. Used to add the turns' matches to the message's at `CONTEXT_WEIGHT`.
 */
export function sumWeightedRankings<Id>(
  rankings: ReadonlyArray<{ ranking: ReadonlyArray<{ rowid: Id; score: number }>; weight: number }>,
): Array<{ rowid: Id; score: number }> {
  const sums = new Map<Id, number>();
  for (const { ranking, weight } of rankings) {
    for (const entry of ranking) sums.set(entry.rowid, (sums.get(entry.rowid) ?? 0) + weight * entry.score);
  }
  return [...sums]
    .map(([rowid, score]) => ({ rowid, score }))
    .sort((left, right) => right.score - left.score);
}

/** One lexical sub-query: its terms are OR-ed, and its BM25 scores count `weight` times. */
export interface WeightedTerms {
  readonly terms: readonly string[];
  readonly weight: number;
  /** False: matched in a memory's own words only, not its session neighbours' (stop words). */
  readonly neighbours?: boolean;
}

/** The last plan `lexicalQueryParts` made, with the texts it was made of. */
let lastPlan: { text: string; contextText: string; parts: readonly WeightedTerms[] } | undefined;

/**
 * The lexical plan of a query: the message's content words (weight 1), its stop words
 * (`STOP_WORD_WEIGHT`) and the recent turns' other content words (`CONTEXT_WEIGHT`); the turns'
 * stop words are left out. Empty parts are dropped.
 */
export function lexicalQueryParts(text: string, contextText = ''): readonly WeightedTerms[] {
  // A turn's context searches each scope (global, person, conversation) with the same texts:
  // the last plan is kept, so the words are split once per turn, not once per scope.
  if (lastPlan && lastPlan.text === text && lastPlan.contextText === contextText) return lastPlan.parts;
  const parts = planLexicalQuery(text, contextText);
  lastPlan = { text, contextText, parts };
  return parts;
}

function planLexicalQuery(text: string, contextText: string): readonly WeightedTerms[] {
  const message = queryTermGroups(text);
  const seen = new Set([...message.content, ...message.stop]);
  const context = queryTermGroups(contextText).content.filter((term) => !seen.has(term));
  return [
    { terms: message.content, weight: 1 },
    { terms: message.stop, weight: STOP_WORD_WEIGHT, neighbours: false },
    // The turns' words are context already: looked for in a memory's neighbours too, they would
    // be two steps from the message (measured on bench:recall with context: 0.477 → 0.443).
    { terms: context, weight: CONTEXT_WEIGHT, neighbours: false },
  ].filter((part) => part.terms.length > 0);
}
