import type { VectorSpace } from '@nexus/memory';
import type { GatewayConfig } from '../config/gateway-config.ts';
import type { DoctorLine } from './doctor-line.ts';

/**
 * `checkStoreIndex` for Qdrant: `ok` (hybrid) when the collection does not exist yet or is
 * indexed with the embedder, else lexical until it is re-indexed, with how far the background
 * re-index's copy (`<collection>--<hash>`) got, or the command when `NEXUS_MEMORY_AUTO_REINDEX`
 * is off. Reads only; Qdrant is asked the way a start asks it.
 */
export async function checkQdrantIndex(
  config: GatewayConfig,
  wanted: VectorSpace & { label: string },
  hybrid: string,
): Promise<DoctorLine> {
  const subject = 'memory search';
  const { qdrantUrl, qdrantApiKey, qdrantCollection } = config.memory;
  const { inspectQdrantCollection } = await import('@nexus/memory-qdrant');
  let state: Awaited<ReturnType<typeof inspectQdrantCollection>>;
  try {
    state = await inspectQdrantCollection({
      url: qdrantUrl!,
      ...(qdrantApiKey ? { apiKey: qdrantApiKey } : {}),
      collection: qdrantCollection,
      wanted: { embedderId: wanted.embedderId, dimensions: wanted.dimensions },
    });
  } catch (error) {
    return {
      status: 'warn',
      subject,
      message: `${hybrid} (Qdrant could not be read: ${(error as Error).message})`,
      fix: 'check NEXUS_QDRANT_URL and that Qdrant is running',
    };
  }
  const space = state.vectorSpace;
  const target = `${wanted.label} (${wanted.dimensions} dimensions)`;
  if (state.interruptedSwitch)
    return {
      status: 'warn',
      subject,
      message: `the collection ${qdrantCollection} is missing but its re-index for ${target} is complete: the next start (or \`nexus memory reindex\`) points the name at it`,
    };
  if (!state.exists || (space?.embedderId === wanted.embedderId && space.dimensions === wanted.dimensions))
    return { status: 'ok', subject, message: hybrid };
  const indexed = space ? `indexed with ${space.embedderId} (${space.dimensions} dimensions)` : 'lexical';
  if (config.memory.autoReindex)
    return {
      status: 'warn',
      subject,
      message: `lexical (BM25) until the Qdrant collection is re-indexed for ${target}: ${Math.min(state.copied ?? 0, state.total)}/${state.total} copied (the gateway or \`nexus memory serve\` does it in the background, resuming where it stopped; its /health shows progress)`,
    };
  return {
    status: 'warn',
    subject,
    message: `lexical (BM25): the Qdrant collection's ${state.total} memories are ${indexed}, not ${target}, and NEXUS_MEMORY_AUTO_REINDEX is off`,
    fix: `NEXUS_EMBEDDING_MODEL=${wanted.label} NEXUS_EMBEDDING_DIMENSIONS=${wanted.dimensions} nexus memory reindex, or set NEXUS_MEMORY_AUTO_REINDEX=true`,
  };
}
