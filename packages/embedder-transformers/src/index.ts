export { createTransformersEmbedder, type TransformersEmbedderOptions } from './transformers-embedder.ts';
export { transformersLibraryUrl } from './transformers-library-url.ts';
