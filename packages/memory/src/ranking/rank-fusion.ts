/**
 * Reciprocal-rank fusion constant. Small on purpose: with k = 10 a result's relevance falls
 * from 1 (first) to about 0.5 (tenth), so rank still matters once recency is mixed in; the
 * textbook k = 60 flattens the first twenty results to within 25% of each other.
 */
export const RRF_K = 10;

/** One channel's results, best first; `score` is higher-is-better in that channel's own units. */
export type ChannelRanking = ReadonlyArray<{ id: string; score: number }>;

/**
 * Fuses one ranking per channel queried into a relevance in [0, 1]: `Σ 1/(k + position)` over
 * the channels an id appears in, divided by its maximum `channels/k`, so an id first in every
 * channel scores 1. Positions count from 0 and equal scores share a position (1-2-2-4), so
 * two memories that match equally well get exactly equal relevance and the documented
 * tie-break (stated before inferred, preference before pattern) decides between them.
 * An empty channel still counts: a dense-only match never outweighs a match in both.
 *
 * One channel alone (lexical search, no embedder) gives each id the square root of its score over
 * the first's: a memory that shares a rare word with the query stays well above one that shares
 * only common words, where positions would put them 0.09 apart and let recency decide; the root
 * keeps a mere length difference (4 words against 6) near-equal, for the prior to decide
 * (measured on `pnpm bench:recall`: recall@5 0.44 → 0.469, with the turns 0.445 → 0.481).
 */
export function fuseRankings(rankings: readonly ChannelRanking[], k = RRF_K): Map<string, number> {
  const [only] = rankings;
  if (rankings.length === 1 && only && only.every((entry) => entry.score > 0)) return relativeScores(only);
  const fused = new Map<string, number>();
  for (const ranking of rankings) {
    let position = 0;
    ranking.forEach((entry, index) => {
      if (index > 0 && entry.score !== ranking[index - 1]?.score) position = index;
      fused.set(entry.id, (fused.get(entry.id) ?? 0) + 1 / (k + position));
    });
  }
  const maximum = Math.max(1, rankings.length) / k;
  for (const [id, value] of fused) fused.set(id, Math.min(1, value / maximum));
  return fused;
}

function relativeScores(ranking: ChannelRanking): Map<string, number> {
  const top = ranking[0]?.score ?? 1;
  return new Map(ranking.map((entry) => [entry.id, Math.min(1, Math.sqrt(entry.score / top))]));
}
