import type { Embedder } from '@nexus/memory';
import { ConfigError } from '../../config/load-config.ts';

/** The add-on that runs `NEXUS_EMBEDDING_PROVIDER=transformers`; not in the production closure. */
export const TRANSFORMERS_ADDON = '@nexus/embedder-transformers';

export const TRANSFORMERS_ADDON_MISSING =
  `NEXUS_EMBEDDING_PROVIDER=transformers needs the add-on ${TRANSFORMERS_ADDON} ` +
  '(ONNX Runtime, about 450 MB installed), which is not installed here. Install it with ' +
  '`pnpm embedder:install` in the Nexus directory (Docker: build the image with ' +
  '`--build-arg NEXUS_EMBEDDER=transformers`), or use NEXUS_EMBEDDING_PROVIDER=openai-compatible.';

interface TransformersAddon {
  createTransformersEmbedder(options: {
    model: string;
    dimensions: number;
    cacheDir: string;
    allowRemoteModels?: boolean;
  }): Embedder;
  transformersLibraryUrl(): string;
}

/**
 * Imports the add-on (and checks that its model library resolves), or fails with a
 * `ConfigError` naming the package and the install command, so the gateway refuses to start
 * rather than failing on the first memory write. `specifier` exists for the test of the absent case.
 */
export async function loadTransformersAddon(
  specifier: string = TRANSFORMERS_ADDON,
): Promise<TransformersAddon> {
  try {
    const addon = (await import(specifier)) as TransformersAddon;
    addon.transformersLibraryUrl();
    return addon;
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    const problem = new ConfigError([TRANSFORMERS_ADDON_MISSING]);
    problem.cause = error;
    throw problem;
  }
}
