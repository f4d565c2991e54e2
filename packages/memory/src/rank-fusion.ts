/**
 * Reciprocal-rank fusion constant. Small on purpose: with k = 10 a result's relevance falls
 * from 1 (first) to about 0.5 (tenth), so rank still matters once recency is mixed in; the
 * textbook k = 60 flattens the first twenty results to within 25% of each other.
 */
export const RRF_K = 10;

/**
 * Fuses ranked id lists (best first), one per channel queried (an empty list still counts:
 * a dense-only match is never worth as much as a match in both channels) into a relevance in [0, 1]:
 * `Σ 1/(k + position)` over the lists an id appears in (position from 0, as Qdrant counts),
 * divided by its maximum `lists/k`. An id first in every list scores 1.
 */
export function fuseRankings(rankings: ReadonlyArray<readonly string[]>, k = RRF_K): Map<string, number> {
  const fused = new Map<string, number>();
  const used = Math.max(1, rankings.length);
  for (const ranking of rankings) {
    ranking.forEach((id, position) => {
      fused.set(id, (fused.get(id) ?? 0) + 1 / (k + position));
    });
  }
  const maximum = used / k;
  for (const [id, value] of fused) fused.set(id, Math.min(1, value / maximum));
  return fused;
}

/** Normalises a raw fused score from a store that computed `Σ 1/(k + position)` itself. */
export function normaliseFusedScore(score: number, lists: number, k = RRF_K): number {
  return Math.max(0, Math.min(1, (score * k) / Math.max(1, lists)));
}
