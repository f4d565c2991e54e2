#!/bin/sh
# Deletes from a production install (its node_modules/.pnpm, the first argument) what Nexus never
# reads at run time. The Dockerfile's `prod` stage runs it, and `pnpm size` measures after it.
#
# - type declarations, source maps, Markdown and MDX, from every package;
# - TypeScript sources (.ts, .mts, .cts, .tsx) that packages ship beside their JavaScript (zod,
#   the AI SDK: about 8 MB): Node refuses to strip types from files under node_modules, so no
#   import could load them (a package export that names one answers only to a bundler's condition);
# - the test, docs and examples folders at a package's root (the AI SDK's docs, bintrees' tests:
#   about 6 MB): no package's `main` or `exports` points into them, and Nexus imports none;
# - luxon's builds for AMD, browsers and globals, and its sources: Node loads only the two its
#   `exports` name, build/es6 (import) and build/node (require);
# - all of gpt-tokenizer but its o200k_base ranks: Nexus counts with its own code
#   (packages/limits-kit/src/load-o200k-tokenizer.ts) and reads only data/o200k_base.tiktoken, so
#   both builds, the TypeScript sources and the other encodings' data go (about 24 MB);
#   package.json stays, for resolving the data file through the package's exports.
set -eu
store="$1"
find "$store" -type f \
  \( -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' -o -name '*.map' -o -name '*.md' -o -name '*.markdown' -o -name '*.mdx' \
  -o -name '*.ts' -o -name '*.mts' -o -name '*.cts' -o -name '*.tsx' \) \
  -delete
# A package's root is node_modules/<name> or node_modules/@scope/<name>, inside the store's
# <package>@<version>/ directories; links to other packages are skipped (each is visited where it
# really is, and a link could lead out of the store).
for package in "$store"/*/node_modules/* "$store"/*/node_modules/@*/*; do
  [ ! -L "$package" ] && [ -f "$package/package.json" ] || continue
  rm -rf "$package/test" "$package/tests" "$package/__tests__" "$package/docs" "$package/examples" "$package/example"
done
for luxon in "$store"/luxon@*/node_modules/luxon; do
  [ -d "$luxon" ] || continue
  rm -rf "$luxon/build/amd" "$luxon/build/cjs-browser" "$luxon/build/global" "$luxon/src"
done
for tokenizer in "$store"/gpt-tokenizer@*/node_modules/gpt-tokenizer; do
  [ -d "$tokenizer" ] || continue
  rm -rf "$tokenizer/esm" "$tokenizer/src" "$tokenizer/cjs"
  find "$tokenizer/data" -type f ! -name 'o200k_base.tiktoken' -delete
done
