import { type ScriptedModelServer, startScriptedModelServer } from '@nexus/testkit/llm';
import { startQdrantStandIn } from '@nexus/testkit/qdrant';
import { WebChatClient } from '@nexus/testkit/web-chat';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway } from '../../testing/test-gateway.ts';

let model: ScriptedModelServer;
let qdrant: Awaited<ReturnType<typeof startQdrantStandIn>>;

beforeAll(async () => {
  model = await startScriptedModelServer({ embeddingDimensions: 64 });
  qdrant = await startQdrantStandIn();
});

afterAll(async () => {
  await Promise.all([model?.close(), qdrant?.close()]);
});

describe('memory store and embedder chosen by settings', () => {
  it('keeps memories in Qdrant with dense vectors from the configured embedder', async () => {
    const gateway = await startTestGateway({
      modelBaseUrl: model.baseUrl,
      env: {
        NEXUS_QDRANT_URL: qdrant.url,
        NEXUS_QDRANT_COLLECTION: 'gateway_memories',
        NEXUS_EMBEDDING_MODEL: 'scripted-embedder',
        NEXUS_EMBEDDING_DIMENSIONS: '64',
      },
    });
    try {
      const collection = qdrant.collections.get('gateway_memories');
      expect(collection?.dense.get('dense')).toEqual({ size: 64, distance: 'Cosine' });
      expect(collection?.indexes.get('userId')).toEqual({ type: 'keyword', isTenant: true });

      const client = await WebChatClient.connect({ url: gateway.url, token: gateway.token });
      const reply = await client.ask('qdrant', 'What should I cook tonight?');
      await client.close();
      expect(reply.text).toBe('Echo: What should I cook tonight?');
      // The memory step embedded the message and searched the person's memories in Qdrant.
      expect(model.requests.some((request) => request.path.endsWith('/embeddings'))).toBe(true);
      expect(
        qdrant.requests.some((request) =>
          request.startsWith('POST /collections/gateway_memories/points/query'),
        ),
      ).toBe(true);
    } finally {
      await gateway.dispose();
    }
  });

  it('names the missing setting when an embedding model has no dimensions', async () => {
    await expect(
      startTestGateway({ modelBaseUrl: model.baseUrl, env: { NEXUS_EMBEDDING_MODEL: 'x' } }),
    ).rejects.toThrow(/NEXUS_EMBEDDING_DIMENSIONS is required/);
  });
});
