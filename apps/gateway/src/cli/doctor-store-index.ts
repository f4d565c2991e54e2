import { join } from 'node:path';
import { readStoreIndex, type VectorSpace } from '@nexus/memory';
import type { GatewayConfig } from '../config/gateway-config.ts';
import type { DoctorLine } from './doctor-line.ts';

/**
 * The memory search line once an embedder is known: `ok` (hybrid) when the embedded store is
 * empty or indexed with it, else lexical until the store is moved: by the background re-index
 * (how far it got) with `NEXUS_MEMORY_AUTO_REINDEX` on, or by `nexus memory reindex`.
 */
export function checkStoreIndex(
  config: GatewayConfig,
  wanted: VectorSpace & { label: string },
  hybrid: string,
): DoctorLine {
  const subject = 'memory search';
  const ok: DoctorLine = { status: 'ok', subject, message: hybrid };
  if (config.memory.qdrantUrl) return ok;
  let index: ReturnType<typeof readStoreIndex>;
  try {
    index = readStoreIndex(join(config.dataDir, 'memory.sqlite'));
  } catch (error) {
    return { ...ok, message: `${hybrid} (the store could not be read: ${(error as Error).message})` };
  }
  if (!index) return ok;
  const space = index.vectorSpace;
  const same = (other: VectorSpace | undefined) =>
    other?.embedderId === wanted.embedderId && other.dimensions === wanted.dimensions;
  if (!space && index.totalMemories === 0) return ok;
  if (same(space) && index.withoutVectors === 0) return ok;
  const target = `${wanted.label} (${wanted.dimensions} dimensions)`;
  if (same(space) && !config.memory.autoReindex)
    return {
      ...ok,
      message: `${hybrid} (${index.withoutVectors} memories have no vector: \`nexus memory reindex\` embeds them)`,
    };
  const indexed = space ? `indexed with ${space.embedderId} (${space.dimensions} dimensions)` : 'lexical';
  if (config.memory.autoReindex) {
    const staged = same(index.reindex?.target) ? index.reindex!.staged : 0;
    return {
      status: 'warn',
      subject,
      message: `lexical (BM25) until the store is re-indexed for ${target}: ${staged}/${index.totalMemories} done (the gateway or \`nexus memory serve\` does it in the background, resuming where it stopped; its /health shows progress)`,
    };
  }
  return {
    status: 'warn',
    subject,
    message: `lexical (BM25): the store's ${index.totalMemories} memories are ${indexed}, not ${target}, and NEXUS_MEMORY_AUTO_REINDEX is off`,
    fix: `NEXUS_EMBEDDING_MODEL=${wanted.label} NEXUS_EMBEDDING_DIMENSIONS=${wanted.dimensions} nexus memory reindex, or set NEXUS_MEMORY_AUTO_REINDEX=true`,
  };
}
