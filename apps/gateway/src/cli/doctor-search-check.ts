import { detectProviderEmbedder } from '../composition/memory/detect-provider-embedder.ts';
import type { GatewayConfig } from '../config/gateway-config.ts';
import type { DoctorLine } from './doctor-line.ts';
import { checkQdrantIndex } from './doctor-qdrant-index.ts';
import { checkStoreIndex } from './doctor-store-index.ts';

/**
 * Which memory search a start would use and why: the configured embedder, the one the provider
 * serves (asked the way the gateway asks at start), or lexical with the reason and the fix.
 */
export async function checkMemorySearch(
  config: GatewayConfig,
  fetchFunction: typeof fetch,
): Promise<DoctorLine> {
  const subject = 'memory search';
  if (config.memory.mode === 'http')
    return {
      status: 'ok',
      subject,
      message: 'decided by the memory service (its /health says which and why)',
    };
  const { embeddingModel, embeddingDimensions, embeddingProvider } = config.memory;
  if (embeddingModel && embeddingDimensions)
    return (config.memory.qdrantUrl ? checkQdrantIndex : checkStoreIndex)(
      config,
      {
        // The id `createGatewayEmbedder` gives it, without loading a local model to ask.
        embedderId: `${embeddingProvider === 'transformers' ? 'transformers' : 'openai-compatible'}:${embeddingModel}`,
        dimensions: embeddingDimensions,
        label: embeddingModel,
      },
      `semantic (hybrid with BM25) with ${embeddingModel}: NEXUS_EMBEDDING_MODEL is set`,
    );
  const lexicalFix =
    'serve an embedding model at the provider (e.g. `ollama pull nomic-embed-text`) or set NEXUS_EMBEDDING_MODEL and NEXUS_EMBEDDING_DIMENSIONS';
  if (!config.memory.embeddingAuto)
    return {
      status: 'warn',
      subject,
      message: 'lexical (BM25): NEXUS_EMBEDDING_AUTO is off',
      fix: lexicalFix,
    };
  const detected = await detectProviderEmbedder(config, fetchFunction);
  if (detected.embedder)
    return (config.memory.qdrantUrl ? checkQdrantIndex : checkStoreIndex)(
      config,
      {
        embedderId: detected.embedder.id,
        dimensions: detected.embedder.dimensions,
        label: detected.embedder.id.replace(/^[^:]*:/u, ''),
      },
      `semantic (hybrid with BM25): ${detected.reason}`,
    );
  return { status: 'warn', subject, message: `lexical (BM25): ${detected.reason}`, fix: lexicalFix };
}
