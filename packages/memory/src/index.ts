export { approximateTokenCounter, sharedTokenCounter, type TokenCounter } from '@nexus/limits-kit';
export { BM25_PARAMETERS } from './bm25-parameters.ts';
export { contentHash, normaliseContent } from './content-hash.ts';
export {
  CONTEXT_HEADER,
  factLine,
  formatAge,
  GLOBAL_CONTEXT_HEADER,
  type PackedContext,
  packContext,
} from './context-block.ts';
export {
  CONTEXT_WEIGHT,
  conversationQuery,
  lexicalQueryParts,
  STOP_WORD_WEIGHT,
} from './conversation-query.ts';
export { cosineSimilarity, type Embedder } from './embedder.ts';
export { ENGLISH_STOP_WORDS } from './english-stop-words.ts';
export { hostHeaderName, isLoopbackName } from './http/is-loopback-name.ts';
export { createMemoryClient, type MemoryClientOptions } from './http/memory-http-client.ts';
export {
  createMemoryRequestHandler,
  type MemoryHttpHandlerOptions,
  type MemoryHttpServer,
  startMemoryHttpServer,
} from './http/memory-http-server.ts';
export type { MemoryImport } from './import/memory-import-item.ts';
export { parseMem0Export } from './import/parse-mem0-export.ts';
export { parseMemoryJsonl } from './import/parse-memory-jsonl.ts';
export { markdownFacts, readOpenClawMemory } from './import/read-openclaw-memory.ts';
export { lexicalTerms, queryTermGroups, queryTerms } from './lexical-terms.ts';
export {
  GLOBAL_USER_ID,
  MAX_MEMORY_CONTENT_CHARS,
  MEMORY_SCOPES,
  type Memory,
  type MemoryCategory,
  type MemoryMetadata,
  type MemoryScope,
  type MemorySource,
  type MemoryStats,
  type MemoryUserStats,
  memoryCategorySchema,
  memoryContentSchema,
  memoryMetadataSchema,
  memorySchema,
  memoryScopeSchema,
  memorySourceSchema,
  sessionIdSchema,
  userIdSchema,
} from './memory.ts';
export {
  type AddMemoryOptions,
  type AddMemoryResult,
  addMemoryOptionsSchema,
  type ContextScopeName,
  type ContextScopeReport,
  type ListMemoriesOptions,
  listMemoriesOptionsSchema,
  type MemoryApi,
  type MemoryContext,
  type MemoryContextOptions,
  type MemoryHealth,
  type MemoryRefOptions,
  type MemorySearchResult,
  memoryContextOptionsSchema,
  memoryRefOptionsSchema,
  resetOptionsSchema,
  type SearchMemoryOptions,
  type StandingFactsOptions,
  searchMemoryOptionsSchema,
  sessionMemoriesOptionsSchema,
  standingFactsOptionsSchema,
  statsOptionsSchema,
  type UpdateMemoryOptions,
  updateMemoryOptionsSchema,
} from './memory-api.ts';
export {
  EmbedderMismatchError,
  MemoryIdTakenError,
  MemoryInputError,
  MemoryStoreError,
} from './memory-errors.ts';
export {
  CATEGORY_ORDER,
  compareRanked,
  DAY_MS,
  MEMORY_PRIOR,
  memoryPrior,
  memoryScore,
  type Rankable,
  type ScoringOptions,
} from './memory-scoring.ts';
export { MemoryService, type MemoryServiceOptions } from './memory-service.ts';
export type {
  MemoryStore,
  StoreListOptions,
  StoreSearchHit,
  StoreSearchOptions,
  StoreStandingOptions,
  StoreWriteOptions,
  VectorSpace,
} from './memory-store.ts';
export {
  createOpenAICompatibleEmbedder,
  type OpenAICompatibleEmbedderOptions,
} from './openai-compatible-embedder.ts';
export { indexTokens } from './person-lexical-index.ts';
export { type QueryTime, queryTime } from './query-time.ts';
export { type ChannelRanking, fuseRankings, RRF_K } from './rank-fusion.ts';
export { readStoreIndex, type StoreIndex } from './read-store-index.ts';
export {
  type ReindexProgress,
  type ReindexResult,
  type ReindexSqliteStoreOptions,
  reindexSqliteStore,
} from './reindex-sqlite-store.ts';
export {
  createSqliteMemoryStore,
  type SqliteMemoryStore,
  type SqliteMemoryStoreOptions,
} from './sqlite-memory-store.ts';
export type { VectorCacheOptions, VectorCacheStats } from './sqlite-vector-cache.ts';
export { mergeStandingKinds, newestFirst, STANDING_KINDS } from './standing-kinds.ts';
export { compareStanding } from './standing-order.ts';
