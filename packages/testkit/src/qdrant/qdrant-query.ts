import {
  normaliseVector,
  type SparseVector,
  type StandInCollection,
  type StoredPoint,
} from './qdrant-collection.ts';
import { QdrantInputError } from './qdrant-filter.ts';

export interface ScoredPoint {
  point: StoredPoint;
  score: number;
}

interface QueryRequest {
  query?: unknown;
  using?: string;
  filter?: unknown;
  prefetch?: QueryRequest | QueryRequest[];
  limit?: number;
  offset?: number;
  score_threshold?: number;
}

const DEFAULT_RRF_K = 2;

/** Evaluates a Query API request (dense, sparse with IDF, prefetch + RRF fusion) like Qdrant. */
export function runQuery(
  collection: StandInCollection,
  request: QueryRequest,
  outerFilter?: unknown,
): ScoredPoint[] {
  const limit = request.limit ?? 10;
  if (!Number.isInteger(limit) || limit < 1)
    throw new QdrantInputError('Validation error in JSON body: limit');
  const filters = [outerFilter, request.filter].filter((filter) => filter !== undefined && filter !== null);
  const filter = filters.length === 0 ? undefined : filters.length === 1 ? filters[0] : { must: filters };
  const prefetches =
    request.prefetch === undefined
      ? []
      : Array.isArray(request.prefetch)
        ? request.prefetch
        : [request.prefetch];
  const query = unwrapNearest(request.query);
  let results: ScoredPoint[];
  if (isFusion(query)) {
    if (prefetches.length === 0)
      throw new QdrantInputError('Bad request: fusion requires at least one prefetch');
    const k =
      typeof query === 'object' && query !== null && 'rrf' in query
        ? ((query.rrf as { k?: number }).k ?? DEFAULT_RRF_K)
        : DEFAULT_RRF_K;
    const fused = new Map<string, ScoredPoint>();
    for (const prefetch of prefetches) {
      runQuery(collection, prefetch, filter).forEach(({ point }, position) => {
        const key = String(point.id);
        const known = fused.get(key);
        fused.set(key, { point, score: (known?.score ?? 0) + 1 / (k + position) });
      });
    }
    results = sortScored([...fused.values()]);
  } else {
    const candidates =
      prefetches.length > 0
        ? uniquePoints(
            prefetches.flatMap((prefetch) => runQuery(collection, prefetch, filter).map((hit) => hit.point)),
          )
        : collection.select(filter);
    results = sortScored(scoreAll(collection, candidates, query, request.using));
  }
  if (request.score_threshold !== undefined)
    results = results.filter((hit) => hit.score >= (request.score_threshold ?? 0));
  const offset = request.offset ?? 0;
  return results.slice(offset, offset + limit);
}

function scoreAll(
  collection: StandInCollection,
  points: StoredPoint[],
  query: unknown,
  using: string | undefined,
): ScoredPoint[] {
  if (query === undefined) return points.map((point) => ({ point, score: 1 }));
  const name = using ?? '';
  const vector = collection.validateVector(name, query);
  if (Array.isArray(vector)) {
    // Stored Cosine vectors are already normalised (see normaliseVector); the query is too.
    const probe = collection.dense.get(name)?.distance === 'Cosine' ? normaliseVector(vector) : vector;
    return points.flatMap((point) => {
      const stored = point.vectors[name];
      if (!Array.isArray(stored)) return [];
      return [{ point, score: dot(probe, stored) }];
    });
  }
  const idf =
    collection.sparse.get(name)?.modifier === 'idf'
      ? inverseDocumentFrequency(collection, name, vector)
      : undefined;
  return points.flatMap((point) => {
    const stored = point.vectors[name];
    if (!stored || Array.isArray(stored)) return [];
    let score = 0;
    let overlap = false;
    vector.indices.forEach((index, position) => {
      const at = stored.indices.indexOf(index);
      if (at < 0) return;
      overlap = true;
      score += (vector.values[position] ?? 0) * (stored.values[at] ?? 0) * (idf?.get(index) ?? 1);
    });
    return overlap ? [{ point, score }] : [];
  });
}

/** Qdrant's IDF: ln(1 + (N − n + 0.5) / (n + 0.5)) over every point of the collection. */
function inverseDocumentFrequency(
  collection: StandInCollection,
  name: string,
  query: SparseVector,
): Map<number, number> {
  const { total, counts } = collection.documentFrequency(name);
  const idf = new Map<number, number>();
  for (const index of query.indices) {
    const count = counts.get(index) ?? 0;
    idf.set(index, Math.log(1 + (total - count + 0.5) / (count + 0.5)));
  }
  return idf;
}

function unwrapNearest(query: unknown): unknown {
  if (query && typeof query === 'object' && !Array.isArray(query) && 'nearest' in query) return query.nearest;
  return query;
}

function isFusion(query: unknown): query is { fusion: string } | { rrf: { k?: number } } {
  if (!query || typeof query !== 'object' || Array.isArray(query)) return false;
  if ('fusion' in query) {
    if (query.fusion !== 'rrf')
      throw new QdrantInputError(`The stand-in does not implement fusion "${String(query.fusion)}"`);
    return true;
  }
  return 'rrf' in query;
}

function sortScored(hits: ScoredPoint[]): ScoredPoint[] {
  return hits.sort(
    (left, right) => right.score - left.score || String(left.point.id).localeCompare(String(right.point.id)),
  );
}

function uniquePoints(points: StoredPoint[]): StoredPoint[] {
  return [...new Map(points.map((point) => [String(point.id), point])).values()];
}

function dot(left: number[], right: number[]): number {
  let sum = 0;
  for (let index = 0; index < left.length; index++) sum += (left[index] ?? 0) * (right[index] ?? 0);
  return sum;
}
