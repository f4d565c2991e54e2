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
 */
export function fuseRankings(rankings: readonly ChannelRanking[], k = RRF_K): Map<string, number> {
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
