// A model thread's first file, plain JavaScript, for the reason apps/gateway/bin/nexus.mjs is: a
// thread that loads TypeScript strips its types with its own WebAssembly copy of SWC (amaro),
// about 17 MB of memory that stays, unless Node's compile cache already holds the stripped code.
// So the thread turns on the main thread's compile cache (when it has one) before the first
// TypeScript file loads, and from the second start on the stripper is never loaded here.
import { enableCompileCache } from 'node:module';
import { workerData } from 'node:worker_threads';

if (typeof workerData?.compileCacheDir === 'string') enableCompileCache(workerData.compileCacheDir);
await import('./model-thread-entry.ts');
