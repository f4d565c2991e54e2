import { hashedEmbedding } from '@nexus/testkit/llm';
import type { Embedder } from '../embedders/embedder.ts';

/**
 * A deterministic in-process embedder (hashed bag of words, the same vectors the scripted model
 * server's `/v1/embeddings` returns) for contract tests and benchmarks. Not a language model:
 * texts sharing words are similar, paraphrases are not.
 */
export function createHashedEmbedder(options: { dimensions: number }): Embedder {
  return {
    id: `hashed-bag-of-words-${options.dimensions}`,
    dimensions: options.dimensions,
    async embed({ texts }) {
      return texts.map((text) => Float32Array.from(hashedEmbedding(text, options.dimensions)));
    },
  };
}
