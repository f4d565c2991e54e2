// Node's compile cache for Nexus (see nexus.mjs for why). `NODE_COMPILE_CACHE`, Node's own
// variable, overrides the directory; the default is in the install, owned by whoever installed it,
// never a shared /tmp.
import { enableCompileCache } from 'node:module';
import { fileURLToPath } from 'node:url';

export function enableNexusCompileCache() {
  enableCompileCache(
    process.env.NODE_COMPILE_CACHE ??
      fileURLToPath(new URL('../../../node_modules/.cache/nexus-compile-cache', import.meta.url)),
  );
}
