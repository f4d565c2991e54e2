import { createOpenAICompatibleEmbedder, type Embedder } from '@nexus/memory';
import type { GatewayConfig } from '../../config/gateway-config.ts';

/**
 * The embedding model tried when none is configured: OpenAI's documented small model, and for an
 * OpenAI-compatible server Ollama's documented embedding model (`ollama pull nomic-embed-text`).
 */
export const DEFAULT_EMBEDDING_MODELS = {
  openai: 'text-embedding-3-small',
  'openai-compatible': 'nomic-embed-text',
} as const;

const PROBE_TIMEOUT_MS = 3_000;

export interface EmbedderChoice {
  embedder?: Embedder;
  /** Which search is on and why, for the log, `/health` and `nexus doctor`. */
  reason: string;
  /** The provider was asked and did not serve embeddings (yet): worth asking again later. */
  askAgain?: boolean;
}

/**
 * With no `NEXUS_EMBEDDING_MODEL`: asks the chat model's provider for one embedding of a short
 * text with its default embedding model. An answer with a vector turns semantic search on with
 * that model (its length is the dimensions); anything else (404, no route, an error, no answer
 * within 3 s) leaves search lexical, with the reason. Never throws.
 */
export async function detectProviderEmbedder(
  config: GatewayConfig,
  fetch: typeof globalThis.fetch = globalThis.fetch,
): Promise<EmbedderChoice> {
  const provider = config.model.provider;
  if (provider !== 'openai' && provider !== 'openai-compatible')
    return { reason: `the model provider (${provider ?? 'none'}) offers no embeddings API` };
  const baseUrl =
    config.memory.embeddingBaseUrl ??
    config.model.baseUrl ??
    (provider === 'openai' ? 'https://api.openai.com/v1' : undefined);
  if (!baseUrl) return { reason: 'no model base URL to ask for embeddings' };
  const model = DEFAULT_EMBEDDING_MODELS[provider];
  const apiKey = config.memory.embeddingApiKey ?? config.model.apiKey;
  const where = `${baseUrl.replace(/\/+$/u, '')}/embeddings`;
  try {
    const response = await fetch(where, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
      },
      body: JSON.stringify({ model, input: ['Nexus checks whether embeddings are available.'] }),
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    });
    if (!response.ok) {
      await response.body?.cancel();
      return {
        reason: `${where} answered ${response.status} for ${model}; set NEXUS_EMBEDDING_MODEL to use another model`,
        askAgain: true,
      };
    }
    const body = (await response.json()) as { data?: Array<{ embedding?: unknown }> };
    const vector = body.data?.[0]?.embedding;
    if (!Array.isArray(vector) || vector.length < 8 || !vector.every((value) => typeof value === 'number'))
      return { reason: `${where} gave no usable vector for ${model}`, askAgain: true };
    const embedder = createOpenAICompatibleEmbedder({
      baseUrl,
      model,
      dimensions: vector.length,
      ...(apiKey ? { apiKey } : {}),
      fetch,
    });
    return { embedder, reason: `the provider serves ${model} (${vector.length} dimensions) at ${where}` };
  } catch (error) {
    // The socket's code (ECONNREFUSED…) says more than fetch's "fetch failed".
    const code = (error as { cause?: { code?: string } } | undefined)?.cause?.code;
    const message = code ?? (error instanceof Error ? error.message : String(error));
    return { reason: `no answer from ${where} for ${model} (${message})`, askAgain: true };
  }
}
