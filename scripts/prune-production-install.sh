#!/bin/sh
# Deletes from a production install (its node_modules/.pnpm, the first argument) what Nexus never
# reads at run time. The Dockerfile's `prod` stage runs it, and `pnpm size` measures after it.
#
# - type declarations, source maps and Markdown, from every package;
# - gpt-tokenizer's other encodings and builds: Nexus counts with o200k_base, read from
#   data/o200k_base.tiktoken through the CommonJS build's GptEncoding
#   (packages/limits-kit/src/load-o200k-tokenizer.ts), so its ES-module build, TypeScript sources,
#   generated rank modules, per-model entry points and the other encodings' data go (about 23 MB).
set -eu
store="$1"
find "$store" -type f \
  \( -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' -o -name '*.map' -o -name '*.md' -o -name '*.markdown' \) \
  -delete
for tokenizer in "$store"/gpt-tokenizer@*/node_modules/gpt-tokenizer; do
  [ -d "$tokenizer" ] || continue
  rm -rf "$tokenizer/esm" "$tokenizer/src" "$tokenizer/cjs/bpeRanks" "$tokenizer/cjs/model" "$tokenizer/cjs/encoding"
  find "$tokenizer/data" -type f ! -name 'o200k_base.tiktoken' -delete
done
