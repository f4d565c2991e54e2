#!/usr/bin/env node
// The `nexus` command: Node's compile cache first, then the CLI (src/cli.ts).
//
// Node runs our TypeScript by stripping types with a WebAssembly build of SWC (amaro), on every
// start, for every file: about a second of start-up and 10+ MB of native memory that stays. The
// compile cache keeps the stripped code and V8's code cache on disk, keyed by each file's content,
// so from the second start on neither the stripper nor most of the parsing runs (docs/deployment.md
// has the figures). It must be enabled before the first TypeScript file loads, hence this file,
// plain JavaScript, as the entry point.
import { enableNexusCompileCache } from './compile-cache.mjs';

enableNexusCompileCache();
await import('../src/cli.ts');
