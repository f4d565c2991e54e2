#!/usr/bin/env node
// The `nexus` command: Node's compile cache first, then the CLI (src/cli.ts).
//
// Node runs our TypeScript by stripping types with a WebAssembly build of SWC (amaro), on every
// start, for every file: about a second of start-up and 10+ MB of native memory that stays. The
// compile cache keeps the stripped code and V8's code cache on disk, keyed by each file's content,
// so from the second start on neither the stripper nor most of the parsing runs (docs/deployment.md
// has the figures). It must be enabled before the first TypeScript file loads, hence this file,
// plain JavaScript, as the entry point. `NODE_COMPILE_CACHE` (Node's own variable) overrides the
// directory; the default is in the install, owned by whoever installed it, never a shared /tmp.
import { enableCompileCache } from 'node:module';
import { fileURLToPath } from 'node:url';

enableCompileCache(
  process.env.NODE_COMPILE_CACHE ??
    fileURLToPath(new URL('../../../node_modules/.cache/nexus-compile-cache', import.meta.url)),
);
await import('../src/cli.ts');
