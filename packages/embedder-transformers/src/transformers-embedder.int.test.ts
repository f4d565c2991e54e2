import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryStoreError } from '@nexus/memory';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTransformersEmbedder } from './transformers-embedder.ts';

// No model hub is reachable here, so a real model can never be downloaded or run in this suite:
// these tests cover the uncached paths against a local stand-in for the hub.
let hub: Server;
let hubUrl: string;
const hubRequests: string[] = [];
let cacheDir: string;

beforeAll(async () => {
  cacheDir = await mkdtemp(join(tmpdir(), 'nexus-models-'));
  hub = createServer((request, response) => {
    hubRequests.push(request.url ?? '');
    response.writeHead(404, { 'content-type': 'text/plain' }).end('Entry not found');
  });
  await new Promise<void>((resolve) => hub.listen(0, '127.0.0.1', resolve));
  hubUrl = `http://127.0.0.1:${(hub.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  await new Promise((resolve) => hub.close(resolve));
  await rm(cacheDir, { recursive: true, force: true });
});

describe('createTransformersEmbedder', () => {
  it('offline and not cached: a clear error naming the model and the cache, no request, and it keeps working', async () => {
    const embedder = createTransformersEmbedder({
      model: 'Xenova/all-MiniLM-L6-v2',
      dimensions: 384,
      cacheDir,
      allowRemoteModels: false,
      remoteHost: hubUrl,
    });
    expect(embedder).toMatchObject({ id: 'transformers:Xenova/all-MiniLM-L6-v2', dimensions: 384 });
    for (let attempt = 0; attempt < 2; attempt++) {
      const error = await embedder.embed({ texts: ['hello'] }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(MemoryStoreError);
      expect((error as MemoryStoreError).message).toContain('"Xenova/all-MiniLM-L6-v2"');
      expect((error as MemoryStoreError).message).toContain(cacheDir);
      expect((error as MemoryStoreError).message).toContain('downloads are off');
      expect(error).toMatchObject({ code: 'not_configured', retryable: false });
    }
    expect(hubRequests).toEqual([]);
  });

  it('downloads on: asks the configured hub for the model files and reports the failure', async () => {
    const embedder = createTransformersEmbedder({
      model: 'nexus-test/missing-model',
      dimensions: 384,
      cacheDir,
      remoteHost: hubUrl,
    });
    const error = await embedder.embed({ texts: ['hello'] }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MemoryStoreError);
    expect((error as MemoryStoreError).message).toContain('"nexus-test/missing-model"');
    expect((error as MemoryStoreError).message).toContain(cacheDir);
    expect(hubRequests.some((url) => url.startsWith('/nexus-test/missing-model/'))).toBe(true);
  });
});
