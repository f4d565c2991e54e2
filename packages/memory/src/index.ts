// biome-ignore-all assist/source/organizeImports: exports are grouped by who uses them, not sorted by path
/**
 * What other packages use of memory, grouped by use. Everything else stays inside the package.
 */
// The memory service, its records and errors (the gateway's composition; core's tests)
export { contentHash } from './model/content-hash.ts';
export {
  GLOBAL_USER_ID,
  type Memory,
  type MemoryCategory,
  type MemoryScope,
  type MemorySource,
  type MemoryStats,
} from './model/memory.ts';
export type { MemoryApi } from './model/memory-api.ts';
export {
  EmbedderMismatchError,
  MemoryIdTakenError,
  MemoryInputError,
  MemoryStoreError,
} from './model/memory-errors.ts';
export { MemoryService } from './service/memory-service.ts';
export { inProcessPersonLane, type PersonLane } from './service/person-lane.ts';
export { type BackgroundReindexOptions, startBackgroundReindex } from './service/background-reindex.ts';
export { fitEmbedderToStore } from './service/fit-embedder-to-store.ts';
export { SwitchingMemoryService } from './service/switching-memory-service.ts';

// Stores: the embedded SQLite store, re-indexing, and the store contract other back ends implement (memory-qdrant)
export type {
  MemoryStore,
  StoreListOptions,
  StoreSearchHit,
  StoreSearchOptions,
  StoreStandingOptions,
  StoreWriteOptions,
  VectorSpace,
} from './model/memory-store.ts';
export { readStoreIndex } from './model/read-store-index.ts';
export {
  type ReindexProgress,
  type ReindexResult,
  reindexSqliteStore,
} from './sqlite/reindex-sqlite-store.ts';
export { createSqliteMemoryStore, type SqliteMemoryStore } from './sqlite/sqlite-memory-store.ts';

// Ranking and lexical terms, shared with other stores (memory-qdrant)
export { BM25_PARAMETERS } from './lexical/bm25-parameters.ts';
export { ENGLISH_STOP_WORDS } from './lexical/english-stop-words.ts';
export { lexicalTerms } from './lexical/lexical-terms.ts';
export { indexTokens } from './lexical/person-lexical-index.ts';
export { lexicalQueryParts } from './ranking/conversation-query.ts';
export { type ChannelRanking, fuseRankings } from './ranking/rank-fusion.ts';
export { mergeStandingKinds, newestFirst, STANDING_KINDS } from './ranking/standing-kinds.ts';
export { compareStanding } from './ranking/standing-order.ts';

// Embedders
export type { Embedder } from './embedders/embedder.ts';
export { createOpenAICompatibleEmbedder } from './embedders/openai-compatible-embedder.ts';

// The memory HTTP API: server, request handler and client
export { hostHeaderName, isLoopbackName } from './http/is-loopback-name.ts';
export { createMemoryClient } from './http/memory-http-client.ts';
export {
  createMemoryRequestHandler,
  type MemoryHttpServer,
  startMemoryHttpServer,
} from './http/memory-http-server.ts';

// Imports from other tools (the gateway's `nexus memory import`)
export type { MemoryImport } from './import/memory-import-item.ts';
export { parseMem0Export } from './import/parse-mem0-export.ts';
export { parseMemoryJsonl } from './import/parse-memory-jsonl.ts';
export { readOpenClawMemory } from './import/read-openclaw-memory.ts';

// The prompt block (core's test stand-in builds it with memory's own code)
export { GLOBAL_CONTEXT_HEADER, packContext, withStandingFacts } from './context/context-block.ts';

// Token counting
export { approximateTokenCounter, sharedTokenCounter } from '@nexus/limits-kit';
