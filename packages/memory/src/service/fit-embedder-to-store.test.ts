import { describe, expect, it } from 'vitest';
import { fitEmbedderToStore } from './fit-embedder-to-store.ts';

const WANTED = { embedderId: 'openai:text-embedding-3-small', dimensions: 1536 };
const OTHER = { embedderId: 'local:minilm', dimensions: 384 };
const base = { wanted: WANTED, fresh: false, totalMemories: 12, withoutVectors: 0, autoReindex: false };

describe('fitEmbedderToStore', () => {
  it('uses the embedder on a store indexed with it, after filling in memories without a vector', () => {
    expect(fitEmbedderToStore({ ...base, stored: WANTED })).toEqual({ action: 'use' });
    expect(fitEmbedderToStore({ ...base, stored: WANTED, withoutVectors: 3, autoReindex: true })).toEqual({
      action: 'reindex',
      detail: "3 of the store's 12 memories have no vector yet",
    });
  });

  it('starts a store with nothing to move on the embedder', () => {
    expect(fitEmbedderToStore({ ...base, stored: undefined, fresh: true, totalMemories: 0 })).toEqual({
      action: 'fresh',
    });
  });

  it('keeps any other store lexical: re-indexed in the background, or until `nexus memory reindex`', () => {
    expect(fitEmbedderToStore({ ...base, stored: OTHER, autoReindex: true })).toEqual({
      action: 'reindex',
      detail: "the store's 12 memories are indexed with local:minilm",
    });
    expect(fitEmbedderToStore({ ...base, stored: undefined })).toEqual({
      action: 'lexical',
      indexed: 'lexical',
    });
    // Same model, other size: another index.
    expect(
      fitEmbedderToStore({ ...base, stored: { ...WANTED, dimensions: 512 }, autoReindex: false }),
    ).toEqual({ action: 'lexical', indexed: `indexed with ${WANTED.embedderId}` });
  });
});
