/**
 * Every module the gateway loads through a dynamic import (relative to this directory, or a
 * package name), so that only the command, role, provider and channels in use are loaded. The
 * image build fills the compile cache with all of them (bin/fill-compile-cache.mjs);
 * `lazily-loaded-modules.test.ts` fails when a dynamic import is missing here.
 */
export const LAZILY_LOADED_MODULES = [
  './start-gateway.ts',
  './roles/start-worker.ts',
  './roles/start-memory-service.ts',
  './cli/run-admin-command.ts',
  './cli/memory-admin-command.ts',
  './cli/memory-reindex.ts',
  './tracing/otel-sdk.ts',
  // A model thread's code, loaded by its first file (model-thread-boot.mjs), never by the main thread.
  './composition/model-threads/model-thread-entry.ts',
  '@ai-sdk/openai-compatible',
  '@ai-sdk/openai',
  '@ai-sdk/anthropic',
  '@nexus/agent-redis',
  '@nexus/queue-bullmq',
  '@nexus/memory-qdrant',
  '@nexus/tools-mcp',
  '@nexus/channel-telegram',
  '@nexus/channel-discord',
  '@nexus/channel-whatsapp',
  'undici',
] as const;
