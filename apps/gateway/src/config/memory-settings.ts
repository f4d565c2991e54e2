import { z } from 'zod';
import type { SettingDefinition } from './setting-definition.ts';
import { booleanText, commaList } from './setting-schemas.ts';

/**
 * `off`, or `<channel>:<group id>=<person id>` entries. No wildcards: a group is opted into
 * personal memory one at a time, for one person, because membership is the owner's statement.
 */
const groupPersonalMemoryEntry = z
  .string()
  .regex(
    /^[a-z][a-z0-9-]*:[^=*]+=(?!group:)[a-z][a-z0-9-]*:[^*]+$/,
    'each entry must look like <channel>:<group id>=<person id>, without wildcards',
  )
  .transform((entry) => {
    const at = entry.indexOf('=');
    return { conversation: entry.slice(0, at), userId: entry.slice(at + 1) };
  });
const groupPersonalMemory = z.union([
  z.literal('off').transform((): { conversation: string; userId: string }[] => []),
  commaList.pipe(z.array(groupPersonalMemoryEntry)),
]);

/**
 * Memory of each person: where it is kept (in process, over HTTP, Qdrant), how it embeds, what it
 * extracts, and how much time and room recall may take in a turn.
 * Part of the settings table (`settings.ts`), in its order.
 */
export const MEMORY_SETTINGS = [
  {
    env: 'NEXUS_MEMORY_MODE',
    path: 'memory.mode',
    schema: z.enum(['in-process', 'http']),
    defaultValue: 'in-process',
    description:
      'Where memory lives: `in-process` (SQLite in `<dataDir>/memory.sqlite`) or `http` (a separate memory service at `NEXUS_MEMORY_URL`).',
    hint: 'use in-process or http',
  },
  {
    env: 'NEXUS_MEMORY_URL',
    path: 'memory.url',
    schema: z.url(),
    description:
      'Base URL of the memory service when `NEXUS_MEMORY_MODE=http`, e.g. `http://memory:8787` (the compose stack’s `memory` service, `nexus memory serve`).',
    hint: 'use a full URL such as http://127.0.0.1:8787',
  },
  {
    env: 'NEXUS_MEMORY_API_KEY',
    path: 'memory.apiKey',
    schema: z.string().min(16),
    description:
      'API key sent to the memory service (`X-API-Key`) when `NEXUS_MEMORY_MODE=http`, and the key the memory service itself (`nexus memory serve`) requires; it refuses to listen on a non-loopback address without one. Also read from `NEXUS_MEMORY_API_KEY_FILE`.',
    hint: 'use the key the memory service was started with (at least 16 characters)',
    secret: true,
  },
  {
    env: 'NEXUS_EMBEDDING_MODEL',
    path: 'memory.embeddingModel',
    schema: z.string().min(1),
    description:
      'Embedding model for semantic memory search through an OpenAI-compatible `/embeddings` API, e.g. `nomic-embed-text` (Ollama) or `text-embedding-3-small`. Unset: search is lexical (BM25) only, and the log says so.',
    hint: 'set it to an embedding model id your provider serves',
  },
  {
    env: 'NEXUS_EMBEDDING_AUTO',
    path: 'memory.embeddingAuto',
    schema: booleanText,
    defaultValue: true,
    description:
      'With `NEXUS_EMBEDDING_MODEL` unset, ask the chat model’s provider at start for embeddings (`openai`: `text-embedding-3-small`; `openai-compatible`: `nomic-embed-text`, Ollama’s) and, when it answers, search memory semantically (hybrid with BM25) on an empty store (on Qdrant: a collection not created yet) or one already indexed with that model; a store indexed otherwise is re-indexed in the background (`NEXUS_MEMORY_AUTO_REINDEX`), or, with that off, stays as it is and the log says how to `nexus memory reindex`. The log, `/health` and `nexus doctor` say which search is on and why. Embedded store and Qdrant alike. `false`: lexical unless `NEXUS_EMBEDDING_MODEL` is set.',
    hint: 'use true or false',
  },
  {
    env: 'NEXUS_MEMORY_AUTO_REINDEX',
    path: 'memory.autoReindex',
    schema: booleanText,
    defaultValue: true,
    description:
      'When the gateway or `nexus memory serve` starts with an embedder (`NEXUS_EMBEDDING_MODEL`, or detected at the provider) that the store is not indexed with, re-embed its memories in the background (resumable, progress in the log, `/health` and `nexus doctor`); search stays lexical until it finishes, then turns hybrid without a restart. Embedded store and Qdrant (a copy of the collection, switched by alias; writes wait during its last check and the switch). `false`: keep the store as it is and run `nexus memory reindex` yourself.',
    hint: 'use true or false',
  },
  {
    env: 'NEXUS_EMBEDDING_DIMENSIONS',
    path: 'memory.embeddingDimensions',
    schema: z.coerce.number().int().min(8).max(8192),
    description:
      'Length of the vectors the embedding model returns (e.g. 768 for nomic-embed-text, 1536 for text-embedding-3-small). Required with `NEXUS_EMBEDDING_MODEL`.',
    hint: 'look up the model’s output size, e.g. 768',
  },
  {
    env: 'NEXUS_EMBEDDING_BASE_URL',
    path: 'memory.embeddingBaseUrl',
    schema: z.url(),
    description:
      'Base URL of the embeddings API. Default: `NEXUS_MODEL_BASE_URL` (or OpenAI’s when the provider is `openai`).',
    hint: 'use a full URL such as http://127.0.0.1:11434/v1',
  },
  {
    env: 'NEXUS_EMBEDDING_API_KEY',
    path: 'memory.embeddingApiKey',
    schema: z.string().min(1),
    description: 'API key for the embeddings API. Default: `NEXUS_MODEL_API_KEY`.',
    hint: 'paste the key from your provider’s dashboard',
    secret: true,
  },
  {
    env: 'NEXUS_EMBEDDING_PROVIDER',
    path: 'memory.embeddingProvider',
    schema: z.enum(['openai-compatible', 'transformers']),
    defaultValue: 'openai-compatible',
    description:
      'How `NEXUS_EMBEDDING_MODEL` runs: `openai-compatible` (an `/embeddings` API) or `transformers` (a local ONNX model through @huggingface/transformers, e.g. `Xenova/all-MiniLM-L6-v2` with 384 dimensions, downloaded once into `NEXUS_EMBEDDING_CACHE_DIR`; needs the add-on `@nexus/embedder-transformers`, installed with `pnpm embedder:install`). Changing the model later re-indexes the store: in the background at start (`NEXUS_MEMORY_AUTO_REINDEX`), else with `nexus memory reindex`.',
    hint: 'use openai-compatible or transformers',
  },
  {
    env: 'NEXUS_EMBEDDING_CACHE_DIR',
    path: 'memory.embeddingCacheDir',
    schema: z.string().min(1),
    description:
      'Where the `transformers` provider keeps downloaded models; a cached model works offline. Default: `<dataDir>/models`.',
    hint: 'use a writable directory path',
  },
  {
    env: 'NEXUS_EMBEDDING_ALLOW_DOWNLOAD',
    path: 'memory.embeddingAllowDownload',
    schema: booleanText,
    defaultValue: true,
    description:
      'Let the `transformers` provider download a model that is not cached yet. Off: only the cache is used (air-gapped hosts; copy the cache there).',
    hint: 'use true or false',
  },
  {
    env: 'NEXUS_QDRANT_URL',
    path: 'memory.qdrantUrl',
    schema: z.url(),
    description:
      'Keep memories in Qdrant at this URL instead of the embedded SQLite file: for in-process memory and for the memory service (`nexus memory serve`), never with `NEXUS_MEMORY_MODE=http`. The collection and its indexes are created at start.',
    hint: 'use the Qdrant REST URL, e.g. http://qdrant:6333',
  },
  {
    env: 'NEXUS_QDRANT_API_KEY',
    path: 'memory.qdrantApiKey',
    schema: z.string().min(1),
    description: 'API key for Qdrant, when it requires one.',
    hint: 'use the api-key configured on the Qdrant server',
    secret: true,
  },
  {
    env: 'NEXUS_QDRANT_COLLECTION',
    path: 'memory.qdrantCollection',
    schema: z.string().regex(/^[A-Za-z0-9_-]{1,255}$/, 'letters, digits, _ or - only'),
    defaultValue: 'nexus_memories',
    description: 'Qdrant collection holding every person’s memories (`userId` is its tenant key).',
    hint: 'use letters, digits, _ or -',
  },
  {
    env: 'NEXUS_MEMORY_EXTRACTION',
    path: 'memory.extraction',
    schema: booleanText,
    defaultValue: true,
    description:
      'Learn from conversations: after each reply a background job stores lasting facts about the person (and corrects outdated ones). Off: memory changes only through the `remember` and `forget` tools.',
    hint: 'use true or false',
  },
  {
    env: 'NEXUS_GROUP_PERSONAL_MEMORY',
    path: 'memory.groupPersonalMemory',
    schema: groupPersonalMemory,
    description:
      'Personal memory in groups. Default `off`: group chats use only the group’s own memory, never a person’s. Otherwise a comma-separated list of groups you state have one human member, as `<channel>:<group id>=<person id>`; that person’s own memory is used when they speak there. No channel can prove who is in a group: list only groups nobody else can join.',
    hint: 'use off, or entries such as telegram:-1001234567890=telegram:123456789 (group=the one person in it, no wildcards) separated by commas',
  },
  {
    env: 'NEXUS_MEMORY_VECTOR_CACHE_MB',
    path: 'memory.vectorCacheMb',
    schema: z.coerce.number().int().min(0).max(65_536),
    defaultValue: 64,
    description:
      'Embedded store only: memory for the quantised vector indexes of people with 2,000+ memories (about 0.5 MB per 1,000 memories at 384 dimensions), least recently searched dropped first. A person whose index does not fit is searched exactly (slower, same results). `0` turns the indexes off.',
    hint: 'set it to megabytes between 0 and 65536, e.g. 64',
  },
  {
    env: 'NEXUS_MEMORY_LEXICAL_CACHE_MB',
    path: 'memory.lexicalCacheMb',
    schema: z.coerce.number().int().min(1).max(65_536),
    defaultValue: 64,
    description:
      'Embedded store only: memory for the in-process keyword (BM25) indexes of the people searched lately (about 3–4 MB per 10,000 memories), least recently searched dropped first; a dropped person’s index is rebuilt from the store on their next message (about 10 ms per 1,000 memories).',
    hint: 'set it to megabytes between 1 and 65536, e.g. 64',
  },
  {
    env: 'NEXUS_MEMORY_CONTEXT_BUDGET_MS',
    path: 'memory.contextBudgetMs',
    schema: z.coerce.number().int().min(50).max(30_000),
    defaultValue: 2000,
    description:
      'Longest wait for memory before a reply; what answered by then is used, a slow or dead memory service never blocks the reply.',
    hint: 'set it to milliseconds between 50 and 30000, e.g. 2000',
  },
  {
    env: 'NEXUS_EXTRACTION_MODEL',
    path: 'memory.extractionModel',
    schema: z.string().min(1),
    description:
      'Model id (same provider) that extracts memories and writes conversation summaries after replies. Default: the chat model’s cheaper sibling when docs/memory-in-the-loop.md (Extraction model) lists one (e.g. `gpt-4o` → `gpt-4o-mini`, `claude-sonnet-4-5` → `claude-haiku-4-5`), falling back to `NEXUS_MODEL` when the provider does not serve it; else `NEXUS_MODEL`. `nexus doctor` says which and why.',
    hint: 'set it to a model id your provider serves, e.g. gpt-4o-mini',
  },
  {
    env: 'NEXUS_SESSION_SUMMARY_IDLE_MS',
    path: 'memory.summaryIdleMs',
    schema: z.coerce.number().int().min(0),
    defaultValue: 1_800_000,
    description:
      'A direct conversation quiet for this long is summarised into memory, so it picks up again after a gap; 0 turns summaries off.',
    hint: 'set it to milliseconds, e.g. 1800000 for 30 minutes, or 0',
  },
  {
    env: 'NEXUS_WELCOME_BACK_AFTER_HOURS',
    path: 'memory.welcomeBackAfterHours',
    schema: z.coerce.number().min(0),
    defaultValue: 72,
    description:
      'A person who writes in a direct chat after this many hours away from every channel (their last message anywhere) is welcomed back, once, with what Nexus remembers about them, when it knows something; 0 turns it off.',
    hint: 'set it to hours, e.g. 72, or 0',
  },
] as const satisfies readonly SettingDefinition[];
