export { createHashedEmbedder } from './hashed-embedder.ts';
export {
  CONTRACT_DIMENSIONS,
  describeMemoryStoreContract,
  type MemoryStoreContractOptions,
} from './memory-store-contract.ts';
export { seededRandom } from './seeded-random.ts';
