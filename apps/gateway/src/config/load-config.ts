import { readFileSync } from 'node:fs';
import { NexusError } from '@nexus/protocol';
import type { GatewayConfig } from './gateway-config.ts';
import { SETTINGS, type SettingDefinition } from './settings.ts';

/** Thrown when configuration is wrong; `problems` holds one line per bad key, each saying how to fix it. */
export class ConfigError extends NexusError {
  readonly problems: string[];

  constructor(problems: string[]) {
    super({ code: 'invalid_config', message: `Invalid configuration:\n  - ${problems.join('\n  - ')}` });
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

export interface LoadConfigOptions {
  env: Record<string, string | undefined>;
  /** JSON config file; environment variables override it. Defaults to `NEXUS_CONFIG`. */
  configFile?: string;
  readFile?: (path: string) => string;
}

/**
 * Builds the gateway config from environment variables and an optional JSON file, validating every
 * key. All problems are reported at once, each naming the variable, the file key and the fix.
 */
export function loadConfig(options: LoadConfigOptions): GatewayConfig {
  const readFile = options.readFile ?? ((path: string) => readFileSync(path, 'utf8'));
  const problems: string[] = [];
  const configFile = options.configFile ?? options.env.NEXUS_CONFIG;
  const fileValues = configFile ? readConfigFile(configFile, readFile, problems) : {};

  const result: Record<string, unknown> = {};
  for (const setting of SETTINGS) {
    ensureParents(result, setting.path);
    const raw = rawValue(setting, options.env, fileValues, readFile, problems);
    if (raw === undefined || raw === '') {
      if (setting.defaultValue !== undefined) setPath(result, setting.path, setting.defaultValue);
      continue;
    }
    const parsed = setting.schema.safeParse(raw);
    if (parsed.success) {
      setPath(result, setting.path, parsed.data);
    } else {
      const reason = parsed.error.issues[0]?.message ?? 'invalid value';
      const shown = setting.secret ? '(hidden)' : JSON.stringify(raw);
      problems.push(
        `${setting.env} (config key "${setting.path}"): ${reason}, got ${shown}; ${setting.hint}.`,
      );
    }
  }

  if (problems.length > 0) throw new ConfigError(problems);
  if (!holdsEverySetting(result))
    throw new ConfigError(['a setting with a default is missing; this is a bug']);
  const config = result;
  problems.push(...crossFieldProblems(config));
  if (problems.length > 0) throw new ConfigError(problems);
  if (config.redis.url && config.redis.password)
    config.redis.url = withPassword(config.redis.url, config.redis.password);
  return config;
}

function readConfigFile(
  path: string,
  readFile: (path: string) => string,
  problems: string[],
): Record<string, unknown> {
  let text: string;
  try {
    text = readFile(path);
  } catch (error) {
    problems.push(
      `NEXUS_CONFIG: cannot read config file ${path} (${(error as Error).message}); fix the path or unset NEXUS_CONFIG.`,
    );
    return {};
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    problems.push(`NEXUS_CONFIG: ${path} is not valid JSON (${(error as Error).message}); fix the syntax.`);
    return {};
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    problems.push(`NEXUS_CONFIG: ${path} must hold a JSON object such as {"server": {"port": 8787}}.`);
    return {};
  }
  const flat = flatten(parsed as Record<string, unknown>);
  const known = new Set(SETTINGS.map((setting) => setting.path));
  for (const key of Object.keys(flat)) {
    if (!known.has(key))
      problems.push(
        `${path}: unknown key "${key}"; remove it or check its spelling (see the README's settings table).`,
      );
  }
  return flat;
}

function rawValue(
  setting: SettingDefinition,
  env: Record<string, string | undefined>,
  fileValues: Record<string, unknown>,
  readFile: (path: string) => string,
  problems: string[],
): unknown {
  const fromEnv = env[setting.env];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  const secretFile = setting.secret ? env[`${setting.env}_FILE`] : undefined;
  if (secretFile) {
    try {
      return readFile(secretFile).trim();
    } catch (error) {
      problems.push(
        `${setting.env}_FILE: cannot read ${secretFile} (${(error as Error).message}); ${secretFileFix(secretFile, error)}`,
      );
      return undefined;
    }
  }
  return fileValues[setting.path];
}

/**
 * How to repair a secret file Nexus cannot read: a missing Docker secret is created on the host
 * (docker-compose.yml mounts secrets/<name> at /run/secrets/<name>); an unreadable one is given to
 * the secrets group docker-compose.yml adds to the services that read secrets (NEXUS_SECRETS_GID,
 * 8787 by default), owned by root, mode 0440.
 */
export function secretFileFix(path: string, error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  const dockerSecret = /^\/run\/secrets\/([^/]+)$/u.exec(path)?.[1];
  if (code === 'EACCES' || code === 'EPERM') {
    if (!dockerSecret) return `make ${path} readable by the user Nexus runs as.`;
    return `make secrets/${dockerSecret} on the host readable by the secrets group docker-compose.yml adds to this service (NEXUS_SECRETS_GID, 8787 by default): sudo chown root:8787 secrets/${dockerSecret} && sudo chmod 440 secrets/${dockerSecret}.`;
  }
  if (dockerSecret) {
    return `create secrets/${dockerSecret} beside docker-compose.yml ((umask 077; openssl rand -hex 32 > secrets/${dockerSecret}); sudo chown root:8787 secrets/${dockerSecret}; sudo chmod 440 secrets/${dockerSecret}; 8787 is NEXUS_SECRETS_GID), list it under this service's secrets:, then docker compose up -d.`;
  }
  return 'fix the path, or set the value itself instead of the _FILE variable.';
}

/**
 * The Redis URL with the password in it, so every client (ioredis, BullMQ) authenticates the same
 * way. A password already in the URL is checked against it in `crossFieldProblems`.
 */
function withPassword(url: string, password: string): string {
  const parsed = new URL(url);
  parsed.password = encodeURIComponent(password);
  return parsed.toString();
}

function crossFieldProblems(config: GatewayConfig): string[] {
  const { provider, baseUrl, apiKey, name } = config.model;
  const problems: string[] = [];
  if (config.memory.mode === 'http' && (!config.memory.url || !config.memory.apiKey)) {
    problems.push(
      'NEXUS_MEMORY_URL and NEXUS_MEMORY_API_KEY are required when NEXUS_MEMORY_MODE=http; set both, or use NEXUS_MEMORY_MODE=in-process.',
    );
  }
  const memory = config.memory;
  if (memory.embeddingModel && !memory.embeddingDimensions) {
    problems.push(
      'NEXUS_EMBEDDING_DIMENSIONS is required with NEXUS_EMBEDDING_MODEL; set it to the length of the vectors the model returns, e.g. 768.',
    );
  }
  if (
    memory.embeddingModel &&
    memory.embeddingProvider !== 'transformers' &&
    !memory.embeddingBaseUrl &&
    !config.model.baseUrl &&
    config.model.provider !== 'openai'
  ) {
    problems.push(
      'NEXUS_EMBEDDING_BASE_URL is required with NEXUS_EMBEDDING_MODEL when NEXUS_MODEL_BASE_URL is not set; e.g. http://127.0.0.1:11434/v1.',
    );
  }
  if (memory.qdrantUrl && memory.mode === 'http') {
    problems.push(
      'NEXUS_QDRANT_URL applies to in-process memory, but NEXUS_MEMORY_MODE=http; configure Qdrant on the memory service instead, or unset one of them.',
    );
  }
  if (config.redis.url && config.redis.password) {
    const inUrl = decodeURIComponent(new URL(config.redis.url).password);
    if (inUrl && inUrl !== config.redis.password) {
      problems.push(
        'NEXUS_REDIS_URL carries a password and NEXUS_REDIS_PASSWORD sets a different one; keep one of them.',
      );
    }
  }
  if (config.server.headersTimeoutMs > config.server.requestTimeoutMs) {
    problems.push(
      `NEXUS_HTTP_HEADERS_TIMEOUT_MS (${config.server.headersTimeoutMs}) is longer than NEXUS_HTTP_REQUEST_TIMEOUT_MS (${config.server.requestTimeoutMs}); the whole request cannot take less time than its headers, so raise the request timeout or lower the headers timeout.`,
    );
  }
  if (config.telegram.webhookUrl && !config.telegram.webhookSecret) {
    problems.push(
      'NEXUS_TELEGRAM_WEBHOOK_SECRET is required when NEXUS_TELEGRAM_WEBHOOK_URL is set; generate one with `openssl rand -hex 32`.',
    );
  }
  if (config.telegram.webhookUrl && !config.telegram.botToken) {
    problems.push(
      'NEXUS_TELEGRAM_WEBHOOK_URL is set but NEXUS_TELEGRAM_BOT_TOKEN is not; set the bot token or unset the webhook URL.',
    );
  }
  if (!provider) {
    for (const [key, value] of [
      ['NEXUS_MODEL_BASE_URL', baseUrl],
      ['NEXUS_MODEL', name],
    ] as const) {
      if (value)
        problems.push(
          `${key} is set but NEXUS_MODEL_PROVIDER is not; set NEXUS_MODEL_PROVIDER to openai-compatible, openai or anthropic.`,
        );
    }
    return problems;
  }
  if (!name)
    problems.push(
      `NEXUS_MODEL (config key "model.name") is required when NEXUS_MODEL_PROVIDER=${provider}; set it to a model id your provider serves.`,
    );
  if (provider === 'openai-compatible' && !baseUrl) {
    problems.push(
      'NEXUS_MODEL_BASE_URL (config key "model.baseUrl") is required for openai-compatible; e.g. http://127.0.0.1:11434/v1 for Ollama.',
    );
  }
  if ((provider === 'openai' || provider === 'anthropic') && !apiKey) {
    problems.push(
      `NEXUS_MODEL_API_KEY (config key "model.apiKey") is required for ${provider}; paste the key from your provider's dashboard or use NEXUS_MODEL_API_KEY_FILE.`,
    );
  }
  return problems;
}

function flatten(object: Record<string, unknown>, prefix = ''): Record<string, unknown> {
  const flat: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'object' && value !== null && !Array.isArray(value))
      Object.assign(flat, flatten(value as Record<string, unknown>, path));
    else flat[path] = value;
  }
  return flat;
}

/** Every settings group exists even when none of its keys is set, so `config.telegram.botToken` is safe. */
function ensureParents(target: Record<string, unknown>, path: string): void {
  let node = target;
  for (const key of path.split('.').slice(0, -1)) {
    node[key] ??= {};
    node = node[key] as Record<string, unknown>;
  }
}

/**
 * True when every setting with a default holds a value: each value came from its setting's schema
 * or default, and GatewayConfig is derived from the same table, so the object has its shape.
 */
function holdsEverySetting(config: Record<string, unknown>): config is GatewayConfig {
  return SETTINGS.every(
    (setting) => setting.defaultValue === undefined || valueAt(config, setting.path) !== undefined,
  );
}

function valueAt(target: Record<string, unknown>, path: string): unknown {
  let node: unknown = target;
  for (const key of path.split('.')) node = (node as Record<string, unknown> | undefined)?.[key];
  return node;
}

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let node = target;
  for (const key of keys.slice(0, -1)) {
    node[key] ??= {};
    node = node[key] as Record<string, unknown>;
  }
  node[keys.at(-1)!] = value;
}
