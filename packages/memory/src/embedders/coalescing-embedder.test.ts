import { type ScriptedModelServer, startScriptedModelServer } from '@nexus/testkit/llm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { coalescingEmbedder } from './coalescing-embedder.ts';
import { createOpenAICompatibleEmbedder } from './openai-compatible-embedder.ts';

let server: ScriptedModelServer;
beforeEach(async () => {
  server = await startScriptedModelServer();
});
afterEach(async () => {
  await server.close();
});

const embeddingRequests = () => server.requests.filter((request) => request.path === '/v1/embeddings');
const inner = () =>
  createOpenAICompatibleEmbedder({ baseUrl: server.baseUrl, model: 'hashed', dimensions: 64 });

describe('the coalescing embedder', () => {
  it('sends a lone request at once, and what comes while the requests are out as one', async () => {
    const direct = inner();
    const embedder = coalescingEmbedder(direct, { maxInFlight: 1 });
    const texts = Array.from({ length: 6 }, (_, index) => `message number ${index}`);
    const vectors = await Promise.all(texts.map((text) => embedder.embed({ texts: [text] })));
    // The first goes alone; the five that came while it was out go together.
    expect(embeddingRequests().map((request) => (request.body as { input: string[] }).input.length)).toEqual([
      1, 5,
    ]);
    // Each caller gets its own text's vector, the one the endpoint gives that text alone.
    const alone = await direct.embed({ texts });
    expect(vectors.map(([vector]) => Array.from(vector!))).toEqual(alone.map((vector) => Array.from(vector)));
  });

  it('lets an aborted caller go without failing the others in its batch', async () => {
    const embedder = coalescingEmbedder(inner(), { maxInFlight: 1 });
    const first = embedder.embed({ texts: ['first'] });
    const controller = new AbortController();
    const aborted = embedder.embed({ texts: ['second'], abortSignal: controller.signal });
    const third = embedder.embed({ texts: ['third'] });
    controller.abort(new Error('the turn was cancelled'));
    await expect(aborted).rejects.toThrow('the turn was cancelled');
    expect(await first).toHaveLength(1);
    expect(await third).toHaveLength(1);
    expect(embeddingRequests().map((request) => (request.body as { input: string[] }).input)).toEqual([
      ['first'],
      ['third'],
    ]);
  });

  it('fails every caller of a failed request with the endpoint’s error, and recovers', async () => {
    const embedder = coalescingEmbedder(inner(), { maxInFlight: 1 });
    server.setEmbeddingFailure(503);
    const failed = await Promise.allSettled([
      embedder.embed({ texts: ['a'] }),
      embedder.embed({ texts: ['b'] }),
      embedder.embed({ texts: ['c'] }),
    ]);
    expect(failed.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(String((failed[1] as PromiseRejectedResult).reason)).toContain('503');
    server.setEmbeddingFailure(undefined);
    expect(await embedder.embed({ texts: ['d'] })).toHaveLength(1);
  });

  it('aborts a combined request once every caller in it gave up, freeing its slot', async () => {
    // An endpoint that never answers until the request is aborted.
    const seen: AbortSignal[] = [];
    const hanging = {
      id: 'hanging',
      dimensions: 2,
      embed: ({ texts, abortSignal }: { texts: readonly string[]; abortSignal?: AbortSignal }) =>
        new Promise<Float32Array[]>((resolve, reject) => {
          if (texts[0] === 'answer') return resolve(texts.map(() => new Float32Array(2)));
          seen.push(abortSignal!);
          abortSignal!.addEventListener('abort', () => reject(abortSignal!.reason));
        }),
    };
    const embedder = coalescingEmbedder(hanging, { maxInFlight: 1 });
    const first = new AbortController();
    const second = new AbortController();
    const stuck = embedder.embed({ texts: ['stuck'], abortSignal: first.signal });
    const queued = embedder.embed({ texts: ['queued'], abortSignal: second.signal });
    second.abort(new Error('budget over'));
    await expect(queued).rejects.toThrow('budget over');
    expect(seen[0]?.aborted).toBe(false);
    first.abort(new Error('budget over'));
    await expect(stuck).rejects.toThrow('budget over');
    expect(seen[0]?.aborted).toBe(true);
    // The slot is free again: the next call goes out at once.
    expect(await embedder.embed({ texts: ['answer'] })).toHaveLength(1);
  });
});
