import { MemoryStoreError } from '../model/memory-errors.ts';
import type { Embedder } from './embedder.ts';
import { embeddingVectorsOf } from './embeddings-response.ts';

export interface OpenAICompatibleEmbedderOptions {
  /** e.g. `https://api.openai.com/v1`, `http://localhost:11434/v1` (Ollama), a vLLM server. */
  baseUrl: string;
  model: string;
  /** Length of the vectors the model returns; every response is checked against it. */
  dimensions: number;
  apiKey?: string;
  /** Send `dimensions` in the request (OpenAI text-embedding-3 models can shorten vectors). */
  sendDimensions?: boolean;
  /** Texts per request. */
  batchSize?: number;
  fetch?: typeof globalThis.fetch;
}

/** An embedder over any OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, Ollama, vLLM). */
export function createOpenAICompatibleEmbedder(options: OpenAICompatibleEmbedderOptions): Embedder {
  const fetchImplementation = options.fetch ?? globalThis.fetch;
  const url = `${options.baseUrl.replace(/\/+$/u, '')}/embeddings`;
  const batchSize = options.batchSize ?? 64;

  async function embedBatch(texts: readonly string[], abortSignal?: AbortSignal): Promise<Float32Array[]> {
    const body: Record<string, unknown> = { model: options.model, input: texts };
    if (options.sendDimensions) body.dimensions = options.dimensions;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
    let response: Response;
    try {
      response = await fetchImplementation(url, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        signal: abortSignal ?? null,
      });
    } catch (error) {
      throw new MemoryStoreError({
        message: `Embedding endpoint ${url} unreachable.`,
        retryable: true,
        cause: error,
      });
    }
    const text = await response.text();
    if (!response.ok) {
      const retryable = response.status === 408 || response.status === 429 || response.status >= 500;
      throw new MemoryStoreError({
        code: 'model_rejected',
        message: `Embedding endpoint answered ${response.status}: ${text.slice(0, 300)}`,
        retryable,
      });
    }
    const vectors = embeddingVectorsOf(safeJson(text), {
      texts: texts.length,
      dimensions: options.dimensions,
    });
    if ('problem' in vectors) {
      throw new MemoryStoreError({
        code: 'model_rejected',
        message:
          vectors.problem === 'dimensions'
            ? `Model ${options.model} returned ${vectors.got} dimensions, expected ${options.dimensions}.`
            : 'Embedding endpoint returned a malformed body.',
      });
    }
    return vectors;
  }

  return {
    id: `openai-compatible:${options.model}`,
    dimensions: options.dimensions,
    async embed({ texts, abortSignal }) {
      const result: Float32Array[] = [];
      for (let start = 0; start < texts.length; start += batchSize) {
        result.push(...(await embedBatch(texts.slice(start, start + batchSize), abortSignal)));
      }
      return result;
    },
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
