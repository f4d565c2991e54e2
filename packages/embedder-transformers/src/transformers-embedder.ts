import type { Embedder } from '@nexus/memory';
import { MemoryStoreError } from '@nexus/memory';

export interface TransformersEmbedderOptions {
  /** A Hugging Face model with ONNX weights, e.g. `Xenova/all-MiniLM-L6-v2` (384 dimensions). */
  model: string;
  /** Length of the vectors the model returns; checked on every call. */
  dimensions: number;
  /** Where downloaded model files are kept; a cached model loads without network. */
  cacheDir: string;
  /** false = never download (only the cache is used); default true (download once, then cache). */
  allowRemoteModels?: boolean;
  /** Mirror of the model hub (default: Hugging Face). */
  remoteHost?: string;
  /** Mean pooling + L2 normalisation is what sentence-embedding models expect. */
  pooling?: 'mean' | 'cls';
}

type FeatureExtractor = (
  texts: string[],
  options: { pooling: 'mean' | 'cls'; normalize: boolean },
) => Promise<{ tolist(): number[][] }>;

/**
 * A local embedding model through `@huggingface/transformers` (ONNX Runtime, CPU). The library is
 * imported on the first `embed` only, so nothing loads unless this embedder is configured. The
 * model is downloaded once into `cacheDir` and read from there afterwards, offline included. A
 * model that cannot be loaded fails each call with a clear error (the next call tries again).
 */
export function createTransformersEmbedder(options: TransformersEmbedderOptions): Embedder {
  const allowRemoteModels = options.allowRemoteModels ?? true;
  let loading: Promise<FeatureExtractor> | undefined;

  async function load(): Promise<FeatureExtractor> {
    const transformers = await import('@huggingface/transformers');
    transformers.env.cacheDir = options.cacheDir;
    transformers.env.allowRemoteModels = allowRemoteModels;
    if (options.remoteHost) transformers.env.remoteHost = options.remoteHost;
    const extractor = await transformers.pipeline('feature-extraction', options.model, {
      cache_dir: options.cacheDir,
      local_files_only: !allowRemoteModels,
    });
    return extractor as unknown as FeatureExtractor;
  }

  async function extractor(): Promise<FeatureExtractor> {
    loading ??= load();
    try {
      return await loading;
    } catch (error) {
      loading = undefined;
      const reason = (error instanceof Error ? error.message : String(error)).replace(/\.+$/u, '');
      throw new MemoryStoreError({
        code: 'not_configured',
        message:
          `Local embedding model "${options.model}" could not be loaded from the cache at ` +
          `${options.cacheDir}${allowRemoteModels ? ' or downloaded' : ' (downloads are off)'}: ${reason}. ` +
          'Run once where the model hub is reachable (downloads on) to cache it; it then works offline.',
        retryable: allowRemoteModels,
        cause: error,
      });
    }
  }

  return {
    id: `transformers:${options.model}`,
    dimensions: options.dimensions,
    async embed({ texts, abortSignal }) {
      abortSignal?.throwIfAborted();
      if (texts.length === 0) return [];
      const run = await extractor();
      const output = await run([...texts], { pooling: options.pooling ?? 'mean', normalize: true });
      const rows = output.tolist();
      return rows.map((row) => {
        if (row.length !== options.dimensions) {
          throw new MemoryStoreError({
            code: 'model_rejected',
            message: `Model ${options.model} returned ${row.length} dimensions, expected ${options.dimensions}.`,
          });
        }
        return Float32Array.from(row);
      });
    },
  };
}
