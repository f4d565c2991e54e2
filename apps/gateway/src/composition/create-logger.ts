import type { Logger } from '@nexus/protocol';
import { pino } from 'pino';
import type { GatewayConfig } from '../config/gateway-config.ts';
import { PLATFORM_ID_FIELDS } from '../data-dir/platform-id-pseudonym.ts';
import { logTraceIds } from '../tracing/log-trace-ids.ts';
import { withLazyChildren } from './lazy-child-logger.ts';

const SECRET_PATHS = ['*.apiKey', '*.token', '*.raw', 'apiKey', 'token', 'raw', 'headers.authorization'];
const SECRET_FIELDS = new Set(['apiKey', 'token', 'raw', 'authorization']);

/**
 * Fields the AI SDK's errors carry that hold the prompt, the model's answer or the provider's
 * headers: people's messages and keys must not reach a log line, at any depth of `cause`.
 */
const PAYLOAD_FIELDS = ['requestBodyValues', 'responseBody', 'responseHeaders', 'data'];

/**
 * Every error is logged under `err` and printed by pino's standard serializer (type, message,
 * stack, cause, own fields such as `code` and `retryable`); an Error under any other key prints
 * as `{}`. Payload fields are dropped from it and from its causes.
 */
export function serializeError(error: unknown): unknown {
  const serialized = pino.stdSerializers.err(error as Error) as unknown;
  return withoutPayload(serialized, 0);
}

function withoutPayload(value: unknown, depth: number): unknown {
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => withoutPayload(item, depth + 1));
  const kept: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (PAYLOAD_FIELDS.includes(key)) continue;
    kept[key] = withoutPayload(field, depth + 1);
  }
  return kept;
}

/**
 * JSON lines by default (what log shippers want), pretty on a terminal (what people want).
 * Secrets and raw platform payloads are redacted wherever they appear in a log object; with
 * `pseudonymise` (platformIdPseudonymiser of the data directory), platform ids and people in
 * the fields PLATFORM_ID_FIELDS names (top level or one object down) are logged as their
 * keyed pseudonyms. Children are made when they first write (see withLazyChildren).
 */
export function createLogger(
  config: GatewayConfig['log'],
  destination?: NodeJS.WritableStream,
  pseudonymise?: (value: unknown) => string,
): Logger {
  const pretty = config.pretty ?? (destination === undefined && process.stdout.isTTY === true);
  const options = {
    level: config.level,
    base: { service: 'nexus' },
    // The active span's trace and span ids on every line written inside one (tracing on).
    mixin: logTraceIds.current,
    serializers: { err: serializeError },
    redact: {
      paths: [
        ...SECRET_PATHS,
        ...(pseudonymise ? PLATFORM_ID_FIELDS.flatMap((field) => [field, `*.${field}`]) : []),
      ],
      censor: (value: unknown, path: string[]) =>
        SECRET_FIELDS.has(path.at(-1) ?? '') || !pseudonymise
          ? '[redacted]'
          : value === undefined || value === null
            ? value
            : pseudonymise(value),
    },
  };
  if (pretty) {
    return withLazyChildren(
      pino({
        ...options,
        transport: { target: 'pino-pretty', options: { colorize: true, translateTime: 'HH:MM:ss' } },
      }),
    );
  }
  return withLazyChildren(destination ? pino(options, destination as pino.DestinationStream) : pino(options));
}

/**
 * Resolves once the log lines written so far have left the logger (the pretty logger writes from
 * a worker thread), so text printed to the terminal afterwards comes after them.
 */
export function whenLogsWritten(logger: Logger): Promise<void> {
  const flushable = logger as Partial<Pick<pino.Logger, 'flush'>>;
  if (typeof flushable.flush !== 'function') return Promise.resolve();
  return new Promise((resolve) => flushable.flush?.(() => resolve()));
}
