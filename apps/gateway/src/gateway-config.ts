import type { McpServerConfig } from '@nexus/tools-mcp/config';

/** The validated configuration the gateway runs with. */
export interface GatewayConfig {
  server: {
    host: string;
    port: number;
    headersTimeoutMs: number;
    requestTimeoutMs: number;
    keepAliveTimeoutMs: number;
    maxConnections: number;
  };
  dataDir: string;
  web: { token?: string; allowedOrigins?: string[]; messagesPerMinute: number; maxPayloadBytes: number };
  model: {
    provider?: 'openai-compatible' | 'openai' | 'anthropic';
    baseUrl?: string;
    apiKey?: string;
    name?: string;
    systemPrompt: string;
    maxSteps: number;
    timeoutMs: number;
    tools: boolean;
  };
  /** Caps per inbound message and the optional daily budget per person. */
  cost: { maxModelCallsPerMessage: number; maxOutputTokensPerMessage: number; dailyTokensPerPerson?: number };
  core: {
    maxConcurrentTurns: number;
    maxQueuedPerConversation: number;
    historyTokenBudget: number;
    shutdownDeadlineMs: number;
  };
  memory: {
    mode: 'in-process' | 'http';
    url?: string;
    apiKey?: string;
    extraction: boolean;
    /** Groups whose one human member the owner named; absent or empty: no personal memory in groups. */
    groupPersonalMemory?: { conversation: string; userId: string }[];
    contextBudgetMs: number;
    extractionModel?: string;
    summaryIdleMs: number;
    welcomeBackAfterHours: number;
    embeddingModel?: string;
    embeddingDimensions?: number;
    embeddingBaseUrl?: string;
    embeddingApiKey?: string;
    embeddingProvider: 'openai-compatible' | 'transformers';
    embeddingCacheDir?: string;
    embeddingAllowDownload: boolean;
    qdrantUrl?: string;
    qdrantApiKey?: string;
    qdrantCollection: string;
  };
  telegram: { botToken?: string; apiRoot?: string; webhookUrl?: string; webhookSecret?: string };
  discord: { botToken?: string; apiUrl?: string };
  whatsapp: { enabled: boolean; pairingPhone?: string };
  /** Which parts run in this process; `worker` and `gateway` need `redis.url`; `memory` is the memory service alone. */
  role: 'all' | 'gateway' | 'worker' | 'memory';
  /** `url` carries `password` once loaded, so every Redis client authenticates. */
  redis: { url?: string; password?: string; prefix: string };
  worker: { concurrency: number; jobLockMs: number; stalledCheckMs: number };
  /** People, pairing and rate limits; see the `NEXUS_*_DM_POLICY` and rate-limit settings. */
  access: {
    dmPolicy: Record<
      'web' | 'telegram' | 'discord' | 'whatsapp',
      'pairing' | 'allowlist' | 'open' | 'disabled'
    >;
    allowlist?: string[];
    groupAllowlist?: string[];
    rateLimit: {
      personPerMinute: number;
      personBurst: number;
      globalPerMinute: number;
      globalBurst: number;
      web: boolean;
    };
  };
  /** Outside tools: MCP servers and who may use them. */
  tools: {
    mcpServers: McpServerConfig[];
    callTimeoutMs: number;
    maxOutputChars: number;
    allowedPeople?: string[];
    inGroups: boolean;
  };
  /** Photos, voice notes and documents (docs/media.md). */
  media: {
    vision: boolean;
    maxBytes: number;
    timeBudgetMs: number;
    retentionDays: number;
    documentMaxChars: number;
    pdfMaxPages: number;
    transcriptionBaseUrl?: string;
    transcriptionModel: string;
    transcriptionApiKey?: string;
  };
  /** The zone of people who did not set one. */
  time: { defaultZone: string };
  log: { level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'; pretty?: boolean };
  /** OpenTelemetry traces over OTLP/HTTP; off unless an endpoint is set (see docs/observability.md). */
  tracing: {
    endpoint?: string;
    tracesEndpoint?: string;
    headers?: Record<string, string>;
    serviceName: string;
  };
}
