#!/bin/sh
# Deletes from a production install (its node_modules/.pnpm, the first argument) what Nexus never
# reads at run time. The Dockerfile's `prod` stage runs it, and `pnpm size` measures after it.
#
# - type declarations, source maps and Markdown, from every package;
# - all of gpt-tokenizer but its o200k_base ranks: Nexus counts with its own code
#   (packages/limits-kit/src/load-o200k-tokenizer.ts) and reads only data/o200k_base.tiktoken, so
#   both builds, the TypeScript sources and the other encodings' data go (about 24 MB);
#   package.json stays, for resolving the data file through the package's exports.
set -eu
store="$1"
find "$store" -type f \
  \( -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' -o -name '*.map' -o -name '*.md' -o -name '*.markdown' \) \
  -delete
for tokenizer in "$store"/gpt-tokenizer@*/node_modules/gpt-tokenizer; do
  [ -d "$tokenizer" ] || continue
  rm -rf "$tokenizer/esm" "$tokenizer/src" "$tokenizer/cjs"
  find "$tokenizer/data" -type f ! -name 'o200k_base.tiktoken' -delete
done
