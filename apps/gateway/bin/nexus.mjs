#!/usr/bin/env node
// The `nexus` command: the Node.js version check, Node's compile cache, then the CLI (src/cli.ts).
//
// The version check comes first and alone: static imports are linked before any code runs, so a
// too-old Node would otherwise stop at the first import it lacks with a SyntaxError and a stack
// trace (require-node.mjs says why). Everything after it is imported dynamically.
//
// Node runs our TypeScript by stripping types with a WebAssembly build of SWC (amaro), on every
// start, for every file: about a second of start-up and 10+ MB of native memory that stays. The
// compile cache keeps the stripped code and V8's code cache on disk, keyed by each file's content,
// so from the second start on neither the stripper nor most of the parsing runs (docs/deployment.md
// has the figures). It must be enabled before the first TypeScript file loads, hence this file,
// plain JavaScript, as the entry point.
import { requireSupportedNode } from './require-node.mjs';

requireSupportedNode();
const { enableNexusCompileCache } = await import('./compile-cache.mjs');
enableNexusCompileCache();
await import('../src/cli.ts');
