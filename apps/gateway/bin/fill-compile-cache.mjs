#!/usr/bin/env node
// Fills Node's compile cache (see nexus.mjs) with every module a Nexus process may load behind a
// dynamic import, at image build time, where the install is still writable: each role, command,
// model provider and channel is one (src/lazily-loaded-modules.ts), so no single command compiles
// them all. `nexus config check` fills in the CLI itself.
import { flushCompileCache } from 'node:module';
import { enableNexusCompileCache } from './compile-cache.mjs';

enableNexusCompileCache();
const { LAZILY_LOADED_MODULES } = await import('../src/lazily-loaded-modules.ts');
const source = new URL('../src/', import.meta.url);
for (const specifier of LAZILY_LOADED_MODULES) {
  await import(specifier.startsWith('.') ? new URL(specifier, source).href : specifier);
}
flushCompileCache();
