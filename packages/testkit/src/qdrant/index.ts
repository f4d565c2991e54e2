export type { SparseVector, StandInCollection, StoredPoint } from './qdrant-collection.ts';
export {
  matchesFilter,
  parsePointId,
  type QdrantCondition,
  type QdrantFilter,
  validateFilter,
} from './qdrant-filter.ts';
export { type QdrantStandIn, startQdrantStandIn } from './qdrant-stand-in.ts';
export { QDRANT_DEPLOYED_VERSION } from './qdrant-status-errors.ts';
