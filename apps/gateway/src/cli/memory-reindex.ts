import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type ReindexProgress, reindexSqliteStore } from '@nexus/memory';
import { NexusError } from '@nexus/protocol';
import { createGatewayEmbedder } from '../composition/memory/choose-embedder-and-store.ts';
import type { LoadConfigOptions } from '../config/load-config.ts';
import type { CommandOutput } from './command-output.ts';
import { EX_CONFIG, loadCommandConfig } from './load-command-config.ts';

export const MEMORY_USAGE = `Usage:
  nexus memory reindex              Re-embed every memory with the configured embedder
                                    (NEXUS_EMBEDDING_MODEL / _DIMENSIONS / _BASE_URL)
  nexus memory reindex --to none    Drop the vectors: search becomes lexical (BM25) only
  Stop the gateway first. Interrupted, the store stays on the old embedder; run it again to resume.
`;

/**
 * `nexus memory reindex [--to none]`: moves the memory store (the SQLite file, or Qdrant when
 * `NEXUS_QDRANT_URL` is set) to the configured embedder. The
 * only way to switch embedders, so one store never holds vectors of two models.
 */
export async function memoryCommand(options: {
  args: string[];
  /** `--to`: only `none` (lexical only) is accepted. */
  to?: string;
  config: LoadConfigOptions;
  output: CommandOutput;
  /** Whether to draw a progress bar (a TTY) or print `n/total` lines. */
  interactive: boolean;
  fetch?: typeof globalThis.fetch;
}): Promise<number> {
  const { output } = options;
  const [action, ...rest] = options.args;
  if (action !== 'reindex' || rest.length > 0 || (options.to !== undefined && options.to !== 'none')) {
    output.error(MEMORY_USAGE);
    return action === undefined || action === 'help' ? 0 : 64;
  }
  const config = loadCommandConfig(options.config, output);
  if (!config) return EX_CONFIG;
  if (config.memory.mode === 'http') {
    output.error(
      'Memory lives in a separate memory service here: run the reindex where that service runs.\n',
    );
    return 64;
  }
  const embedder = options.to === 'none' ? undefined : await createGatewayEmbedder(config, options.fetch);
  if (options.to !== 'none' && !embedder) {
    output.error(
      'No embedder configured: set NEXUS_EMBEDDING_MODEL and NEXUS_EMBEDDING_DIMENSIONS, or pass --to none.\n',
    );
    return 78;
  }
  const target = embedder ? `${embedder.id} (${embedder.dimensions} dimensions)` : 'lexical only';
  const { qdrantUrl, qdrantApiKey, qdrantCollection } = config.memory;
  const path = join(config.dataDir, 'memory.sqlite');
  if (!qdrantUrl && !existsSync(path)) {
    output.out(`No memory store at ${path} yet: nothing to re-index.\n`);
    return 0;
  }
  output.out(`Re-indexing ${qdrantUrl ? `Qdrant collection ${qdrantCollection}` : path} for ${target}\n`);
  const progress = progressPrinter(options.output, options.interactive);
  try {
    const result = qdrantUrl
      ? await (await import('@nexus/memory-qdrant')).reindexQdrantStore({
          url: qdrantUrl,
          ...(qdrantApiKey ? { apiKey: qdrantApiKey } : {}),
          collection: qdrantCollection,
          embedder,
          onProgress: progress.update,
        })
      : await reindexSqliteStore({ path, embedder, onProgress: progress.update });
    progress.end();
    const from = result.from
      ? `${result.from.embedderId} (${result.from.dimensions} dimensions)`
      : 'lexical only';
    output.out(
      `Done: ${result.total} memories now on ${target} (was ${from}); ${result.embedded} embedded in this run.\n`,
    );
    return 0;
  } catch (error) {
    progress.end();
    const message = error instanceof NexusError || error instanceof Error ? error.message : String(error);
    output.error(
      `Re-index stopped: ${message}\nThe store is still on its previous embedder; run the same command again to resume.\n`,
    );
    return 1;
  }
}

const BAR_WIDTH = 30;

/** A bar redrawn in place on a terminal; plain `done/total` lines for logs and pipes. */
function progressPrinter(output: CommandOutput, interactive: boolean) {
  let drawn = false;
  return {
    update({ done, total }: ReindexProgress) {
      if (!interactive) {
        output.out(`${done}/${total}\n`);
        return;
      }
      const ratio = total === 0 ? 1 : done / total;
      const filled = Math.round(ratio * BAR_WIDTH);
      const bar = `${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}`;
      output.out(`\r[${bar}] ${Math.floor(ratio * 100)}% ${done}/${total}`);
      drawn = true;
    },
    end() {
      if (drawn) output.out('\n');
      drawn = false;
    },
  };
}
