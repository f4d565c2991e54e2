/**
 * Where `@huggingface/transformers` resolves from this package; throws `ERR_MODULE_NOT_FOUND`
 * when it is not installed. The library itself is imported only on the first `embed` (it takes
 * about a second), so this is how a start-up check finds a half-installed add-on early.
 */
export function transformersLibraryUrl(): string {
  return import.meta.resolve('@huggingface/transformers');
}
