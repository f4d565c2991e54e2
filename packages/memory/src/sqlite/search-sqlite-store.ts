import type { Memory } from '../model/memory.ts';
import type { StoreSearchHit, StoreSearchOptions } from '../model/memory-store.ts';
import type { RowRanking } from '../model/row-ranking.ts';
import { lexicalQueryParts, sumWeightedRankings, type WeightedTerms } from '../ranking/conversation-query.ts';
import { fuseRankings } from '../ranking/rank-fusion.ts';
import type { LexicalMisses } from './lexical-misses.ts';
import { memoriesByRowid, type Statements } from './memory-rows.ts';
import type { SqliteLexicalCache } from './sqlite-lexical-cache.ts';
import { similarityFromDistance, unitVectorBytes } from './sqlite-schema.ts';
import {
  anyLexicalMatch,
  denseRanking,
  lexicalRanking,
  MAX_KNN,
  partitionMatch,
  type SearchPartition,
  sessionLinks,
} from './sqlite-search.ts';
import type { SqliteVectorCache } from './sqlite-vector-cache.ts';

/**
 * The embedded store's hybrid search (`MemoryStore.search`): BM25 from the person's in-process
 * index or FTS5, cosine KNN from sqlite-vec (through the quantised cache when it holds the
 * person), fused by rank; then only the kept rows are read, filtered in SQL by person, scope and
 * session. The caller has committed the person's queued inserts.
 */
export function searchSqliteStore(
  store: {
    statement: Statements;
    lexicalCache: SqliteLexicalCache;
    vectorCache: SqliteVectorCache | undefined;
    hasVectorTable: boolean;
    lexicalMisses: LexicalMisses;
    /** The file's committed version, as the store's ranking caches read it (once per pass). */
    dataVersion: () => number;
  },
  options: StoreSearchOptions,
): StoreSearchHit[] {
  if (options.scopes?.length === 0) return [];
  const candidates = Math.min(MAX_KNN, Math.max(options.limit * 4, 40));
  const partition = { userId: options.userId, scopes: options.scopes, sessionId: options.sessionId };
  const statements = store.statement;
  const rankings: RowRanking[] = [];
  // A person's or scope's memories are ranked by the in-process index in one pass over the
  // parts' postings (message words, its stop words, the turns' words, each at its weight).
  // A session's few linked memories, and a large person's while their index is built, are
  // found by FTS5, one BM25 query per part, summed by weight.
  const index = options.sessionId === undefined ? store.lexicalCache.index(options.userId) : undefined;
  if ((index ? index.size : store.lexicalCache.knownSize(options.userId)) === 0) return [];
  // A session's links are read first (one indexed read, which the dense channel's candidates
  // are anyway): a conversation nothing has been linked to yet costs no FTS5 query.
  const linked = options.sessionId === undefined ? undefined : sessionLinks(statements, partition);
  if (linked?.length === 0) return [];
  const parts = lexicalQueryParts(options.text, options.contextText);
  if (parts.length > 0) {
    const lexical = index
      ? index.rank(parts, candidates, options.scopes)
      : ftsRanking(statements, currentMisses(store), partition, parts, candidates);
    rankings.push(lexical.slice(0, candidates));
  }
  const query = options.embedding && store.hasVectorTable ? unitVectorBytes(options.embedding) : undefined;
  if (query) {
    // The lexical index knows how many memories the person has: no count for the vector cache.
    const vectors =
      options.sessionId === undefined ? store.vectorCache?.index(options.userId, index?.size) : undefined;
    const few = index !== undefined && index.size <= FEW_TO_SCAN;
    rankings.push(denseRanking(statements, partition, query, candidates, vectors, linked, few));
  }
  const channels = rankings.map((ranking) =>
    ranking.map((entry) => ({ id: String(entry.rowid), score: entry.score })),
  );
  const relevance = fuseRankings(channels);
  // Best fused relevance first; equal relevance keeps channel order (lexical, then dense).
  const order = [...new Set(rankings.flatMap((ranking) => ranking.map((entry) => entry.rowid)))];
  const relevanceOf = (rowid: number) => relevance.get(String(rowid)) ?? 0;
  order.sort((left, right) => relevanceOf(right) - relevanceOf(left));
  const kept = order.slice(0, options.limit);
  // Only the kept rows are read, and the SQL filter on person, scope and session decides.
  const memories = memoriesByRowid(statements, kept, partition);
  return kept.flatMap((rowid) => {
    const memory = memories.get(rowid);
    return memory ? [{ memory, relevance: relevanceOf(rowid) }] : [];
  });
}

/**
 * A person with at most this many memories (all scopes) has their vectors compared one by one
 * from the plain copy instead of by sqlite-vec's KNN, whose fixed cost (its shadow tables, a
 * chunk of 64 slots) is several times that of reading a few rows. Same distances, same order.
 */
const FEW_TO_SCAN = 16;

/**
 * FTS5's BM25, one query per part, summed by weight. A partition whose last search here matched
 * nothing (mostly a conversation's few linked memories, which most messages do not mention) is
 * first asked once, unscored, whether it holds any of the parts' words not already known absent
 * (`LexicalMisses`): if not, every part's query would come back empty, and that one query (or
 * none, when every word is known absent) stands for all of them. The answer is FTS5's either way.
 */
function currentMisses(store: { lexicalMisses: LexicalMisses; dataVersion: () => number }): LexicalMisses {
  store.lexicalMisses.current(store.dataVersion());
  return store.lexicalMisses;
}

function ftsRanking(
  statements: Statements,
  misses: LexicalMisses,
  partition: SearchPartition,
  parts: readonly WeightedTerms[],
  limit: number,
): RowRanking {
  const key = partitionMatch(partition);
  const terms = parts.flatMap((part) => part.terms);
  if (misses.missed(key)) {
    const unknown = misses.unknown(key, terms);
    if (unknown.length === 0 || !anyLexicalMatch(statements, partition, unknown)) {
      misses.absent(key, unknown);
      return [];
    }
  }
  const ranking = sumWeightedRankings(
    parts.map((part) => ({
      ranking: lexicalRanking(statements, partition, part.terms, limit),
      weight: part.weight,
    })),
  );
  if (ranking.length === 0) misses.absent(key, terms);
  else misses.matched(key);
  return ranking;
}

/** The person's `limit` nearest memories by cosine (`MemoryStore.nearest`), for near-duplicate checks. */
export function nearestInSqliteStore(
  statement: Statements,
  options: { userId: string; embedding: Float32Array; limit: number },
): Array<{ memory: Memory; similarity: number }> {
  const query = unitVectorBytes(options.embedding);
  if (!query) return [];
  const neighbours = statement(
    'SELECT rowid, distance FROM memories_vec WHERE embedding MATCH ? AND k = ? AND user_id = ?',
  ).all(query, Math.min(MAX_KNN, options.limit), options.userId) as Array<{
    rowid: number;
    distance: number;
  }>;
  const memories = memoriesByRowid(
    statement,
    neighbours.map((neighbour) => neighbour.rowid),
    { userId: options.userId },
  );
  return neighbours.flatMap((neighbour) => {
    const memory = memories.get(neighbour.rowid);
    return memory ? [{ memory, similarity: similarityFromDistance(neighbour.distance) }] : [];
  });
}
