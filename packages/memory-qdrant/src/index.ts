export { inspectQdrantCollection, type QdrantCollectionState } from './inspect-qdrant-collection.ts';
export { guard, toStoreError } from './qdrant-errors.ts';
export { openQdrantMemoryStore, type QdrantMemoryStoreOptions } from './qdrant-memory-store.ts';
export {
  qdrantReindexTarget,
  type ReindexQdrantStoreOptions,
  reindexQdrantStore,
} from './reindex-qdrant-store.ts';
export { type SparseVector, sparseDocumentVector, sparseQueryVector, termIndex } from './sparse-bm25.ts';
