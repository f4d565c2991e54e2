import { mcpServerConfigSchema } from '@nexus/tools-mcp/config';
import { z } from 'zod';

/**
 * Every setting a user can change, in one table: the environment variable, the path in the
 * optional JSON config file, its schema, default and a one-line description. The README's settings
 * table is checked against this list by a test, so documentation cannot drift from code.
 */
export interface SettingDefinition {
  env: string;
  path: string;
  schema: z.ZodType;
  defaultValue?: unknown;
  description: string;
  /** How to fix a wrong value; shown in the error. */
  hint: string;
  /** Secrets are redacted in logs and may be read from `<ENV>_FILE`. */
  secret?: boolean;
}

const port = z.coerce.number().int().min(0).max(65_535);
const positiveInt = z.coerce.number().int().positive();
const booleanText = z.union([
  z.boolean(),
  z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1'),
]);
const commaList = z.union([
  z.array(z.string()),
  z.string().transform((value) =>
    value
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean),
  ),
]);

/** `OTEL_EXPORTER_OTLP_HEADERS`: `k=v,k2=v2` with URL-encoded values, as the OTel spec writes it. */
const otlpHeaders = z.union([
  z.record(z.string(), z.string()),
  z
    .string()
    .regex(/^\s*[^=,\s]+\s*=[^,]*(,\s*[^=,\s]+\s*=[^,]*)*$/, 'expected key=value pairs separated by commas')
    .transform((value) =>
      Object.fromEntries(
        value.split(',').map((pair) => {
          const at = pair.indexOf('=');
          return [pair.slice(0, at).trim(), decodeURIComponent(pair.slice(at + 1).trim())];
        }),
      ),
    ),
]);

/** A JSON list in an environment variable (or its `_FILE`), or the list itself in the config file. */
const mcpServerList = z
  .union([
    z.array(z.unknown()),
    z.string().transform((text, context) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        context.addIssue({ code: 'custom', message: 'not valid JSON' });
        return z.NEVER;
      }
    }),
  ])
  .pipe(z.array(mcpServerConfigSchema))
  .refine((servers) => new Set(servers.map((server) => server.name)).size === servers.length, {
    message: 'server names must be unique',
  });

/** An IANA zone name `Intl` knows (the same check `/timezone` makes). */
const timeZone = z.string().refine((zone) => {
  try {
    new Intl.DateTimeFormat('en-GB', { timeZone: zone });
    return zone.trim() !== '';
  } catch {
    return false;
  }
}, 'not a time zone Intl knows');

const dmPolicy = z.enum(['pairing', 'allowlist', 'open', 'disabled']);
const identityList = commaList.pipe(
  z.array(z.string().regex(/^(\*|[a-z][a-z0-9-]*:.+)$/, 'each entry must look like <channel>:<id>')),
);

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

const SETTINGS_TABLE = [
  {
    env: 'NEXUS_HOST',
    path: 'server.host',
    schema: z.string().min(1),
    defaultValue: '127.0.0.1',
    description: 'Interface the HTTP server binds to. Use 0.0.0.0 only behind a reverse proxy with TLS.',
    hint: 'set it to an IP address such as 127.0.0.1',
  },
  {
    env: 'NEXUS_PORT',
    path: 'server.port',
    schema: port,
    defaultValue: 8787,
    description:
      'HTTP port for the web chat, `/ws`, `/health`, `/ready` and `/metrics` (0 picks a free port).',
    hint: 'set it to a free TCP port between 0 and 65535, e.g. 8787',
  },
  {
    env: 'NEXUS_HTTP_HEADERS_TIMEOUT_MS',
    path: 'server.headersTimeoutMs',
    schema: z.coerce.number().int().min(1000).max(600_000),
    defaultValue: 10_000,
    description:
      'Longest time a client may take to send the request line and headers; slower connections are closed (a trickling client cannot hold a connection open).',
    hint: 'set it to milliseconds between 1000 and 600000, e.g. 10000',
  },
  {
    env: 'NEXUS_HTTP_REQUEST_TIMEOUT_MS',
    path: 'server.requestTimeoutMs',
    schema: z.coerce.number().int().min(1000).max(3_600_000),
    defaultValue: 30_000,
    description:
      'Longest time a client may take to send a whole request, body included (web-socket connections are not affected once open). At least `NEXUS_HTTP_HEADERS_TIMEOUT_MS`.',
    hint: 'set it to milliseconds between 1000 and 3600000, e.g. 30000',
  },
  {
    env: 'NEXUS_HTTP_KEEP_ALIVE_TIMEOUT_MS',
    path: 'server.keepAliveTimeoutMs',
    schema: z.coerce.number().int().min(0).max(600_000),
    defaultValue: 5000,
    description:
      'How long an idle keep-alive HTTP connection stays open between requests. Behind a reverse proxy that keeps upstream connections alive, make it longer than the proxy’s upstream idle timeout, so the proxy never reuses a connection the gateway is closing.',
    hint: 'set it to milliseconds between 0 and 600000, e.g. 5000',
  },
  {
    env: 'NEXUS_HTTP_MAX_CONNECTIONS',
    path: 'server.maxConnections',
    schema: z.coerce.number().int().min(1).max(1_000_000),
    defaultValue: 1024,
    description:
      'Most TCP connections the HTTP server holds at once, open web-chat sockets included; further connections are dropped at once instead of exhausting memory or file descriptors.',
    hint: 'set it to a positive integer such as 1024 (keep it below the process’s file-descriptor limit)',
  },
  {
    env: 'NEXUS_DATA_DIR',
    path: 'dataDir',
    schema: z.string().min(1),
    defaultValue: '.data',
    description: 'Directory for the SQLite files (sessions) and the generated web token.',
    hint: 'set it to a writable directory path',
  },
  {
    env: 'NEXUS_WEB_TOKEN',
    path: 'web.token',
    schema: z.string().regex(/^[A-Za-z0-9_-]{16,256}$/, 'expected 16–256 letters, digits, _ or -'),
    description:
      'Token the web client signs in with. When unset, one is generated on first start and kept in `<dataDir>/web-token`.',
    hint: 'use at least 16 characters from A–Z, a–z, 0–9, _ and -, or unset it to have one generated',
    secret: true,
  },
  {
    env: 'NEXUS_WEB_ALLOWED_ORIGINS',
    path: 'web.allowedOrigins',
    schema: commaList,
    description:
      'Comma-separated browser origins allowed to open `/ws` (default: the gateway’s own address). Blocks cross-site WebSocket hijacking.',
    hint: 'list full origins such as https://chat.example.com, separated by commas',
  },
  {
    env: 'NEXUS_WEB_MESSAGES_PER_MINUTE',
    path: 'web.messagesPerMinute',
    schema: positiveInt,
    defaultValue: 30,
    description: 'Messages one web-socket connection may send per minute before it is told to slow down.',
    hint: 'set it to a positive integer such as 30',
  },
  {
    env: 'NEXUS_WEB_MAX_PAYLOAD_BYTES',
    path: 'web.maxPayloadBytes',
    schema: z.coerce
      .number()
      .int()
      .min(1024)
      .max(16 * 1024 * 1024),
    defaultValue: 64 * 1024,
    description: 'Largest web-socket frame accepted; bigger frames close the connection with 1009.',
    hint: 'set it to a byte count between 1024 and 16777216',
  },
  {
    env: 'NEXUS_MODEL_PROVIDER',
    path: 'model.provider',
    schema: z.enum(['openai-compatible', 'openai', 'anthropic']),
    description:
      'Model provider: `openai-compatible` (Ollama, vLLM, LM Studio, OpenRouter, …), `openai` or `anthropic`. Unset: Nexus starts and answers with setup instructions.',
    hint: 'use one of openai-compatible, openai, anthropic',
  },
  {
    env: 'NEXUS_MODEL_BASE_URL',
    path: 'model.baseUrl',
    schema: z.url(),
    description:
      'Base URL of the provider API, e.g. `http://127.0.0.1:11434/v1` for Ollama. Required for `openai-compatible`.',
    hint: 'use a full URL such as http://127.0.0.1:11434/v1',
  },
  {
    env: 'NEXUS_MODEL_API_KEY',
    path: 'model.apiKey',
    schema: z.string().min(1),
    description:
      'API key for the provider. Required for `openai` and `anthropic`. Also read from `NEXUS_MODEL_API_KEY_FILE`.',
    hint: 'paste the key from your provider’s dashboard, or point NEXUS_MODEL_API_KEY_FILE at a file holding it',
    secret: true,
  },
  {
    env: 'NEXUS_MODEL',
    path: 'model.name',
    schema: z.string().min(1),
    description: 'Model id, e.g. `llama3.1:8b`, `gpt-4o-mini`, `claude-sonnet-4-5`.',
    hint: 'set it to a model id your provider serves',
  },
  {
    env: 'NEXUS_SYSTEM_PROMPT',
    path: 'model.systemPrompt',
    schema: z.string().min(1).max(20_000),
    defaultValue:
      'You are Nexus, a helpful personal assistant. Answer clearly and concisely. Use Markdown when it helps.',
    description: 'System prompt for every conversation.',
    hint: 'set it to the instructions the assistant should follow (up to 20000 characters)',
  },
  {
    env: 'NEXUS_MODEL_MAX_STEPS',
    path: 'model.maxSteps',
    schema: positiveInt,
    defaultValue: 5,
    description: 'Most model steps (calls, including tool rounds) in one reply.',
    hint: 'set it to a positive integer such as 5',
  },
  {
    env: 'NEXUS_MODEL_TIMEOUT_MS',
    path: 'model.timeoutMs',
    schema: positiveInt,
    defaultValue: 120_000,
    description: 'Wall-clock limit for one reply, in milliseconds.',
    hint: 'set it to a positive number of milliseconds such as 120000',
  },
  {
    env: 'NEXUS_MESSAGE_MAX_MODEL_CALLS',
    path: 'cost.maxModelCallsPerMessage',
    schema: z.coerce.number().int().min(1).max(1000),
    defaultValue: 12,
    description:
      'Most model requests one inbound message may cause, over every step, tool round, retry and subagent (nested ones too). At the cap the reply stops with what was generated and a short note. A plain answer takes 1, a tool round 2–3, a delegation of three tasks about 9.',
    hint: 'set it to a whole number between 1 and 1000, e.g. 12',
  },
  {
    env: 'NEXUS_MESSAGE_MAX_OUTPUT_TOKENS',
    path: 'cost.maxOutputTokensPerMessage',
    schema: z.coerce.number().int().min(1).max(1_000_000),
    defaultValue: 8000,
    description:
      'Most output tokens one inbound message may cause, over all its model requests (subagents included); each request may generate only what is left.',
    hint: 'set it to a whole number between 1 and 1000000, e.g. 8000',
  },
  {
    env: 'NEXUS_DAILY_TOKENS_PER_PERSON',
    path: 'cost.dailyTokensPerPerson',
    schema: z.coerce.number().int().min(1).max(1_000_000_000),
    description:
      'Input plus output tokens one person may use per day (UTC), counted over all their channels, the web chat included, and kept in `<dataDir>/token-budget.sqlite`. Over it, messages get a reply saying when it resets, without a model call; commands still work. Unset: no daily limit.',
    hint: 'set it to a whole number of tokens such as 200000, or unset it for no daily limit',
  },
  {
    env: 'NEXUS_MAX_CONCURRENT_TURNS',
    path: 'core.maxConcurrentTurns',
    schema: positiveInt,
    defaultValue: 32,
    description:
      'Replies generated at the same time across all conversations (one at a time per conversation).',
    hint: 'set it to a positive integer such as 32',
  },
  {
    env: 'NEXUS_MAX_QUEUED_PER_CONVERSATION',
    path: 'core.maxQueuedPerConversation',
    schema: positiveInt,
    defaultValue: 100,
    description: 'Messages waiting in one conversation before new ones are refused as rate-limited.',
    hint: 'set it to a positive integer such as 100',
  },
  {
    env: 'NEXUS_HISTORY_TOKEN_BUDGET',
    path: 'core.historyTokenBudget',
    schema: positiveInt,
    defaultValue: 3000,
    description: 'Tokens of earlier conversation turns included in each prompt (newest first).',
    hint: 'set it to a positive integer such as 3000',
  },
  {
    env: 'NEXUS_SHUTDOWN_DEADLINE_MS',
    path: 'core.shutdownDeadlineMs',
    schema: positiveInt,
    defaultValue: 8000,
    description: 'On SIGTERM, how long in-flight replies may finish before they are aborted.',
    hint: 'set it to a positive number of milliseconds such as 8000',
  },
  {
    env: 'NEXUS_MODEL_TOOLS',
    path: 'model.tools',
    schema: booleanText,
    defaultValue: true,
    description:
      'Give the model its tools: `remember`, `recall`, `forget` (memory of the person speaking), `delegate` (subagents), `schedule` (reminders) and those of MCP servers. Turn off for models without tool calling.',
    hint: 'use true or false',
  },
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
      'How `NEXUS_EMBEDDING_MODEL` runs: `openai-compatible` (an `/embeddings` API) or `transformers` (a local ONNX model through @huggingface/transformers, e.g. `Xenova/all-MiniLM-L6-v2` with 384 dimensions, downloaded once into `NEXUS_EMBEDDING_CACHE_DIR`; needs the add-on `@nexus/embedder-transformers`, installed with `pnpm embedder:install`). Changing the model later takes `nexus memory reindex`.',
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
      'Model id (same provider) that extracts memories and writes conversation summaries after replies; a cheaper one is usually enough. Default: `NEXUS_MODEL`.',
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
      'A person who writes again in a direct chat after this many hours is welcomed back with what Nexus remembers about them; 0 turns it off.',
    hint: 'set it to hours, e.g. 72, or 0',
  },
  {
    env: 'NEXUS_TELEGRAM_BOT_TOKEN',
    path: 'telegram.botToken',
    schema: z.string().regex(/^\d+:[A-Za-z0-9_-]+$/, 'expected a bot token such as 123456:ABC-DEF…'),
    description:
      'Telegram bot token from @BotFather. Setting it turns the Telegram channel on (long polling).',
    hint: 'copy the token @BotFather gave you (digits, a colon, then letters), or unset it to turn Telegram off',
    secret: true,
  },
  {
    env: 'NEXUS_TELEGRAM_API_ROOT',
    path: 'telegram.apiRoot',
    schema: z.url().refine((value) => !value.endsWith('/'), 'must not end with /'),
    description:
      'Bot API server root, for a self-hosted Telegram Bot API server. Default: https://api.telegram.org.',
    hint: 'use a URL without a trailing slash, e.g. http://127.0.0.1:8081',
  },
  {
    env: 'NEXUS_TELEGRAM_WEBHOOK_URL',
    path: 'telegram.webhookUrl',
    schema: z
      .url()
      .refine(
        (value) => value.startsWith('https://') || /^http:\/\/(127\.0\.0\.1|localhost)[:/]/.test(value),
        'Telegram only delivers webhooks to https URLs',
      ),
    description:
      'Public HTTPS URL Telegram should POST updates to (webhook mode). Its path is served by the gateway; unset: long polling.',
    hint: 'use the public https URL that reaches this gateway, e.g. https://bot.example.com/telegram/webhook',
  },
  {
    env: 'NEXUS_TELEGRAM_WEBHOOK_SECRET',
    path: 'telegram.webhookSecret',
    schema: z.string().regex(/^[A-Za-z0-9_-]{16,256}$/, 'expected 16–256 letters, digits, _ or -'),
    description:
      'Secret Telegram sends with every webhook request; requests without it are refused. Required in webhook mode.',
    hint: 'generate one, e.g. `openssl rand -hex 32`',
    secret: true,
  },
  {
    env: 'NEXUS_DISCORD_BOT_TOKEN',
    path: 'discord.botToken',
    schema: z.string().min(20),
    description:
      'Discord bot token (Developer Portal → Bot; enable the Message Content intent). Setting it turns the Discord channel on.',
    hint: 'copy the bot token from the Discord Developer Portal, or unset it to turn Discord off',
    secret: true,
  },
  {
    env: 'NEXUS_DISCORD_API_URL',
    path: 'discord.apiUrl',
    schema: z.url(),
    description:
      'Discord REST API root, only for testing against a stand-in. Default: https://discord.com/api.',
    hint: 'use a URL such as http://127.0.0.1:3000/api',
  },
  {
    env: 'NEXUS_WHATSAPP_ENABLED',
    path: 'whatsapp.enabled',
    schema: booleanText,
    defaultValue: false,
    description:
      'Turn the WhatsApp channel on (a linked device through Baileys). Link it by scanning the QR code shown in the web client’s Channels panel (also printed in the log).',
    hint: 'use true or false',
  },
  {
    env: 'NEXUS_WHATSAPP_PAIRING_PHONE',
    path: 'whatsapp.pairingPhone',
    schema: z.string().regex(/^\d{6,15}$/, 'expected the phone number in international format, digits only'),
    description: 'Link WhatsApp with a pairing code for this phone number instead of a QR code.',
    hint: 'write the number with country code and digits only, e.g. 351912345678',
  },
  {
    env: 'NEXUS_ROLE',
    path: 'role',
    schema: z.enum(['all', 'gateway', 'worker', 'memory']),
    defaultValue: 'all',
    description:
      'What this process runs: `all` (gateway and worker in one), `gateway` (channels, people, sessions; agent runs go to workers through Redis), `worker` (agent runs from Redis) or `memory` (the memory HTTP API on its own store, for `NEXUS_MEMORY_MODE=http`; same as `nexus memory serve`). Same as `nexus start --role`.',
    hint: 'use one of all, gateway, worker, memory',
  },
  {
    env: 'NEXUS_REDIS_URL',
    path: 'redis.url',
    schema: z.url().regex(/^rediss?:\/\//, 'expected a redis:// or rediss:// URL'),
    description:
      'Redis for agent-run jobs and reply streams between gateway and workers. Required by the `gateway` and `worker` roles; with `all`, setting it lets extra workers share the load. Also read from `NEXUS_REDIS_URL_FILE`.',
    hint: 'use a URL such as redis://127.0.0.1:6379 (redis://:password@host:6379 with a password)',
    secret: true,
  },
  {
    env: 'NEXUS_REDIS_PASSWORD',
    path: 'redis.password',
    schema: z.string().min(1),
    description:
      'Password for Redis (its `requirepass`), when `NEXUS_REDIS_URL` does not carry one. Also read from `NEXUS_REDIS_PASSWORD_FILE` (docker-compose.yml passes the `redis-password` secret that way).',
    hint: 'use the password Redis is configured with (requirepass)',
    secret: true,
  },
  {
    env: 'NEXUS_REDIS_PREFIX',
    path: 'redis.prefix',
    schema: z.string().regex(/^[A-Za-z0-9_-]{1,32}$/, 'expected 1–32 letters, digits, _ or -'),
    defaultValue: 'nexus',
    description: 'Prefix of every Redis key, so several Nexus deployments can share one Redis.',
    hint: 'use 1–32 letters, digits, _ or -, such as nexus',
  },
  {
    env: 'NEXUS_WORKER_CONCURRENCY',
    path: 'worker.concurrency',
    schema: positiveInt,
    defaultValue: 16,
    description:
      'Agent runs one worker process handles at the same time (roles `worker` and `all` with Redis).',
    hint: 'set it to a positive integer such as 16',
  },
  {
    env: 'NEXUS_JOB_LOCK_MS',
    path: 'worker.jobLockMs',
    schema: z.coerce.number().int().min(1000),
    defaultValue: 10_000,
    description:
      'Lease a worker holds on a running job, renewed at half. When a worker dies, its agent runs move to another worker after at most this plus `NEXUS_JOB_STALLED_CHECK_MS`.',
    hint: 'set it to at least 1000 milliseconds, e.g. 10000',
  },
  {
    env: 'NEXUS_JOB_STALLED_CHECK_MS',
    path: 'worker.stalledCheckMs',
    schema: z.coerce.number().int().min(500),
    defaultValue: 5000,
    description: 'How often workers look for jobs whose lease expired (a worker that died mid-run).',
    hint: 'set it to at least 500 milliseconds, e.g. 5000',
  },
  ...(['web', 'telegram', 'discord', 'whatsapp'] as const).map((channel) => ({
    env: `NEXUS_${channel.toUpperCase()}_DM_POLICY`,
    path: `access.dmPolicy.${channel}` as const,
    schema: dmPolicy,
    defaultValue: channel === 'web' ? 'open' : 'pairing',
    description:
      channel === 'web'
        ? 'Who may chat on the web: `open` (default; the web chat is the owner’s and already needs the gateway token, each browser becomes a person), `pairing`, `allowlist` or `disabled`.'
        : `Who may send ${channel === 'whatsapp' ? 'WhatsApp' : channel === 'telegram' ? 'Telegram' : 'Discord'} direct messages: \`pairing\` (default: strangers get a code the owner approves with \`nexus pairing approve CODE\`), \`allowlist\` (only \`NEXUS_DM_ALLOWLIST\` and approved people), \`open\` (anyone) or \`disabled\`.`,
    hint: 'use one of pairing, allowlist, open, disabled',
  })),
  {
    env: 'NEXUS_DM_ALLOWLIST',
    path: 'access.allowlist',
    schema: identityList,
    description:
      'Comma-separated identities always allowed direct messages, as `<channel>:<platform id>` (e.g. `telegram:123456789`), or `<channel>:*` for everyone on a channel.',
    hint: 'list entries such as telegram:123456789,discord:987654321 separated by commas',
  },
  {
    env: 'NEXUS_GROUP_ALLOWLIST',
    path: 'access.groupAllowlist',
    schema: identityList,
    description:
      'Comma-separated groups the assistant answers in (only when mentioned, replied to or given a command), as `<channel>:<chat id>`, `<channel>:*` or `*`. Default: none. Approving a person never grants group access.',
    hint: 'list entries such as telegram:-1001234567890,discord:* separated by commas',
  },
  {
    env: 'NEXUS_RATE_LIMIT_PER_MINUTE',
    path: 'access.rateLimit.personPerMinute',
    schema: positiveInt,
    defaultValue: 10,
    description:
      'Messages per minute one person may send to the model (token bucket); beyond it they get a polite reply and no model call.',
    hint: 'set it to a positive integer such as 10',
  },
  {
    env: 'NEXUS_RATE_LIMIT_BURST',
    path: 'access.rateLimit.personBurst',
    schema: positiveInt,
    defaultValue: 10,
    description: 'Messages one person may send at once before `NEXUS_RATE_LIMIT_PER_MINUTE` applies.',
    hint: 'set it to a positive integer such as 10',
  },
  {
    env: 'NEXUS_GLOBAL_RATE_LIMIT_PER_MINUTE',
    path: 'access.rateLimit.globalPerMinute',
    schema: positiveInt,
    defaultValue: 120,
    description: 'Messages per minute from everyone together that reach the model.',
    hint: 'set it to a positive integer such as 120',
  },
  {
    env: 'NEXUS_GLOBAL_RATE_LIMIT_BURST',
    path: 'access.rateLimit.globalBurst',
    schema: positiveInt,
    defaultValue: 60,
    description: 'Messages from everyone together accepted at once before the global rate applies.',
    hint: 'set it to a positive integer such as 60',
  },
  {
    env: 'NEXUS_RATE_LIMIT_WEB',
    path: 'access.rateLimit.web',
    schema: booleanText,
    defaultValue: false,
    description:
      'Apply the per-person and global rate limits to the web chat too. Off by default: the web chat is the owner’s and is limited per connection by `NEXUS_WEB_MESSAGES_PER_MINUTE`.',
    hint: 'use true or false',
  },
  {
    env: 'NEXUS_MODEL_VISION',
    path: 'media.vision',
    schema: booleanText,
    defaultValue: false,
    description:
      'The model accepts images. Off: a photo gets a short reply that the configured model cannot see images. See docs/media.md.',
    hint: 'use true or false',
  },
  {
    env: 'NEXUS_MEDIA_MAX_BYTES',
    path: 'media.maxBytes',
    schema: positiveInt,
    defaultValue: 20 * 1024 * 1024,
    description:
      'Largest attachment (photo, voice note, document) downloaded; bigger ones get a clear reply. Also the cap of a web-chat upload (`POST /api/web/uploads` answers 413 above it).',
    hint: 'set it to a byte count such as 20971520',
  },
  {
    env: 'NEXUS_MEDIA_TIME_BUDGET_MS',
    path: 'media.timeBudgetMs',
    schema: positiveInt,
    defaultValue: 30_000,
    description:
      'Time one attachment may take to download, transcribe or read; after it the person is told, and the conversation moves on.',
    hint: 'set it to a positive number of milliseconds such as 30000',
  },
  {
    env: 'NEXUS_MEDIA_RETENTION_DAYS',
    path: 'media.retentionDays',
    schema: positiveInt,
    defaultValue: 30,
    description:
      'Days received media is kept in `<dataDir>/media` (files 0600, one folder per person, named by content hash; deleted sooner when the person is forgotten), web-chat uploads included (their owner records in `<dataDir>/web-uploads`).',
    hint: 'set it to a positive number of days such as 30',
  },
  {
    env: 'NEXUS_DOCUMENT_MAX_CHARS',
    path: 'media.documentMaxChars',
    schema: positiveInt,
    defaultValue: 24_000,
    description:
      'Characters of document text (PDF, plain text) given to the model per message; the rest is cut.',
    hint: 'set it to a positive integer such as 24000',
  },
  {
    env: 'NEXUS_PDF_MAX_PAGES',
    path: 'media.pdfMaxPages',
    schema: positiveInt,
    defaultValue: 50,
    description: 'Pages of a PDF read at most; the model is told when the rest was left out.',
    hint: 'set it to a positive integer such as 50',
  },
  {
    env: 'NEXUS_TRANSCRIPTION_BASE_URL',
    path: 'media.transcriptionBaseUrl',
    schema: z.url(),
    description:
      'OpenAI-compatible speech-to-text API (`POST /audio/transcriptions`), e.g. `http://whisper:8000/v1` (compose profile `whisper`). Unset: voice notes get a reply that they cannot be listened to.',
    hint: 'use a full URL such as http://127.0.0.1:8000/v1',
  },
  {
    env: 'NEXUS_TRANSCRIPTION_MODEL',
    path: 'media.transcriptionModel',
    schema: z.string().min(1),
    defaultValue: 'whisper-1',
    description: 'Model id sent to the transcription API.',
    hint: 'set it to a model id the transcription server serves, e.g. whisper-1',
  },
  {
    env: 'NEXUS_TRANSCRIPTION_API_KEY',
    path: 'media.transcriptionApiKey',
    schema: z.string().min(1),
    description:
      'API key for the transcription API, when it needs one. Also read from `NEXUS_TRANSCRIPTION_API_KEY_FILE`.',
    hint: 'paste the key, or point NEXUS_TRANSCRIPTION_API_KEY_FILE at a file holding it',
    secret: true,
  },
  {
    env: 'NEXUS_MCP_SERVERS',
    path: 'tools.mcpServers',
    schema: mcpServerList,
    defaultValue: [],
    description:
      'MCP tool servers, as a JSON list: `{"name":"files","transport":"stdio","command":"npx","args":[…],"env":{…}}` or `{"name":"crm","transport":"http","url":"https://…/mcp","headers":{"Authorization":"Bearer …"}}`, each with an optional `"tools":[…]` allowlist. Also read from `NEXUS_MCP_SERVERS_FILE` (keep header secrets there). See docs/tools.md.',
    hint: 'give a JSON list of servers, e.g. [{"name":"shop","transport":"http","url":"http://127.0.0.1:3001/mcp"}]',
    secret: true,
  },
  {
    env: 'NEXUS_MCP_CALL_TIMEOUT_MS',
    path: 'tools.callTimeoutMs',
    schema: positiveInt,
    defaultValue: 20_000,
    description:
      'How long one MCP tool call may take; after it the call is abandoned and the model is told so.',
    hint: 'set it to a positive number of milliseconds, e.g. 20000',
  },
  {
    env: 'NEXUS_MCP_MAX_OUTPUT_CHARS',
    path: 'tools.maxOutputChars',
    schema: positiveInt,
    defaultValue: 8000,
    description: 'Characters of one MCP tool result given to the model; longer output is cut with a note.',
    hint: 'set it to a positive integer such as 8000',
  },
  {
    env: 'NEXUS_MCP_ALLOWED_PEOPLE',
    path: 'tools.allowedPeople',
    schema: identityList,
    description:
      'Who gets MCP tools besides the web chat (the owner’s, behind the gateway token): person ids or `<channel>:<platform id>` entries such as `telegram:123456789`, or `*` for everyone. Default: nobody else.',
    hint: 'list entries such as telegram:123456789 separated by commas',
  },
  {
    env: 'NEXUS_MCP_IN_GROUPS',
    path: 'tools.inGroups',
    schema: booleanText,
    defaultValue: false,
    description: 'Offer MCP tools in group chats too (to allowed people only). Off by default.',
    hint: 'use true or false',
  },
  {
    env: 'NEXUS_DEFAULT_TIMEZONE',
    path: 'time.defaultZone',
    schema: timeZone,
    defaultValue: 'UTC',
    description:
      'Time zone (IANA name, e.g. `Europe/Lisbon`) for people who have not set theirs with `/timezone`: reminders, schedules and "today" in memory extraction.',
    hint: 'use an IANA zone name such as UTC or Europe/Lisbon',
  },
  {
    env: 'NEXUS_LOG_LEVEL',
    path: 'log.level',
    schema: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    defaultValue: 'info',
    description: 'Log level. Logs are JSON lines (pretty when stdout is a terminal).',
    hint: 'use one of fatal, error, warn, info, debug, trace, silent',
  },
  {
    env: 'NEXUS_LOG_PRETTY',
    path: 'log.pretty',
    schema: booleanText,
    description: 'Force pretty (true) or JSON (false) logs; default: pretty only on a terminal.',
    hint: 'use true or false',
  },
  {
    env: 'OTEL_EXPORTER_OTLP_ENDPOINT',
    path: 'tracing.endpoint',
    schema: z.url(),
    description:
      'OpenTelemetry: base URL of an OTLP/HTTP collector (traces go to `<url>/v1/traces`). Unset (and no traces endpoint), tracing is off and its libraries are not loaded. See docs/observability.md (Langfuse: `https://cloud.langfuse.com/api/public/otel`).',
    hint: 'use a URL such as http://127.0.0.1:4318',
  },
  {
    env: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
    path: 'tracing.tracesEndpoint',
    schema: z.url(),
    description:
      'OpenTelemetry: the full OTLP/HTTP traces URL, used as is; overrides `OTEL_EXPORTER_OTLP_ENDPOINT` for traces.',
    hint: 'use a URL such as http://127.0.0.1:4318/v1/traces',
  },
  {
    env: 'OTEL_EXPORTER_OTLP_HEADERS',
    path: 'tracing.headers',
    schema: otlpHeaders,
    description:
      'OpenTelemetry: headers sent with every export, `key=value` pairs separated by commas, values URL-encoded (e.g. `Authorization=Basic%20<base64>` for Langfuse). Also read from `OTEL_EXPORTER_OTLP_HEADERS_FILE`.',
    hint: 'use key=value pairs separated by commas, such as Authorization=Basic%20abc',
    secret: true,
  },
  {
    env: 'OTEL_SERVICE_NAME',
    path: 'tracing.serviceName',
    schema: z.string().min(1).max(200),
    defaultValue: 'nexus',
    description: 'OpenTelemetry: `service.name` of this process in traces (each role may set its own).',
    hint: 'use a short name such as nexus-gateway',
  },
] as const satisfies readonly SettingDefinition[];

/** The settings with their exact types; `GatewayConfig` is derived from it. */
export type SettingsTable = typeof SETTINGS_TABLE;

export const SETTINGS: readonly SettingDefinition[] = SETTINGS_TABLE;
