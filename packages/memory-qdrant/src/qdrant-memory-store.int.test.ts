import { randomUUID } from 'node:crypto';
import { describeMemoryStoreContract } from '@nexus/memory/testing';
import { type QdrantStandIn, startQdrantStandIn } from '@nexus/testkit/qdrant';
import { QdrantClient } from '@qdrant/js-client-rest';
import { afterAll, beforeAll } from 'vitest';
import { openQdrantMemoryStore } from './qdrant-memory-store.ts';

let standIn: QdrantStandIn;
beforeAll(async () => {
  standIn = await startQdrantStandIn();
});
afterAll(async () => {
  await standIn.close();
});

describeMemoryStoreContract({
  name: 'Qdrant adapter against the REST stand-in',
  createLocation: () => `memories_${randomUUID().replaceAll('-', '')}`,
  open: ({ location, vectors }) => openQdrantMemoryStore({ url: standIn.url, collection: location, vectors }),
  cleanup: async (location) => {
    await new QdrantClient({ url: standIn.url, checkCompatibility: false }).deleteCollection(location);
  },
});

const realUrl = process.env.QDRANT_URL;
describeMemoryStoreContract({
  name: 'Qdrant adapter against a real Qdrant (QDRANT_URL)',
  skipReason: realUrl
    ? undefined
    : 'QDRANT_URL is not set, so no real Qdrant to test against (no server can run here).',
  createLocation: () => `nexus_contract_${randomUUID().replaceAll('-', '')}`,
  open: ({ location, vectors }) =>
    openQdrantMemoryStore({
      url: realUrl,
      apiKey: process.env.QDRANT_API_KEY,
      collection: location,
      vectors,
    }),
  cleanup: async (location) => {
    // Only runs when QDRANT_URL is set (skipReason above).
    const apiKey = process.env.QDRANT_API_KEY;
    await new QdrantClient({
      url: realUrl!,
      ...(apiKey === undefined ? {} : { apiKey }),
      checkCompatibility: false,
    }).deleteCollection(location);
  },
});
