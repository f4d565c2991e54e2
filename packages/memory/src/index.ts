export { approximateTokenCounter, sharedTokenCounter, type TokenCounter } from '@nexus/limits-kit';
export {
  CONTEXT_HEADER,
  factLine,
  GLOBAL_CONTEXT_HEADER,
  type PackedContext,
  packContext,
  withStandingFacts,
} from './context/context-block.ts';
export { cosineSimilarity, type Embedder } from './embedders/embedder.ts';
export {
  createOpenAICompatibleEmbedder,
  type OpenAICompatibleEmbedderOptions,
} from './embedders/openai-compatible-embedder.ts';
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
export { lexicalTerms, queryTermGroups, queryTerms } from './lexical/lexical-terms.ts';
export { contentHash, normaliseContent } from './model/content-hash.ts';
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
} from './model/memory.ts';
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
} from './model/memory-api.ts';
export {
  EmbedderMismatchError,
  MemoryIdTakenError,
  MemoryInputError,
  MemoryStoreError,
} from './model/memory-errors.ts';
export type {
  MemoryStore,
  StoreListOptions,
  StoreSearchHit,
  StoreSearchOptions,
  StoreStandingOptions,
  StoreWriteOptions,
  VectorSpace,
} from './model/memory-store.ts';
export { readStoreIndex, type StoreIndex } from './model/read-store-index.ts';
export {
  CONTEXT_WEIGHT,
  conversationQuery,
  lexicalQueryParts,
  STOP_WORD_WEIGHT,
} from './ranking/conversation-query.ts';
export {
  CATEGORY_ORDER,
  compareRanked,
  DAY_MS,
  MEMORY_PRIOR,
  memoryPrior,
  memoryScore,
  type Rankable,
  type ScoringOptions,
} from './ranking/memory-scoring.ts';
export { type QueryTime, queryTime } from './ranking/query-time.ts';
export { type ChannelRanking, fuseRankings, RRF_K } from './ranking/rank-fusion.ts';
export { mergeStandingKinds, newestFirst, STANDING_KINDS } from './ranking/standing-kinds.ts';
export { compareStanding } from './ranking/standing-order.ts';
export { MemoryService, type MemoryServiceOptions } from './service/memory-service.ts';
export { inProcessPersonLane, type PersonLane } from './service/person-lane.ts';
export {
  type ReindexProgress,
  type ReindexResult,
  type ReindexSqliteStoreOptions,
  reindexSqliteStore,
} from './sqlite/reindex-sqlite-store.ts';
export {
  createSqliteMemoryStore,
  type SqliteMemoryStore,
  type SqliteMemoryStoreOptions,
} from './sqlite/sqlite-memory-store.ts';
export type { VectorCacheOptions, VectorCacheStats } from './sqlite/sqlite-vector-cache.ts';
