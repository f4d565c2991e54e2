import type { Logger } from '@nexus/protocol';
import { pino } from 'pino';
import type { GatewayConfig } from '../config/gateway-config.ts';
import { PLATFORM_ID_FIELDS } from '../data-dir/platform-id-pseudonym.ts';
import { logTraceIds } from '../tracing/log-trace-ids.ts';
import { withLazyChildren } from './lazy-child-logger.ts';
import { platformIdMasker } from './mask-platform-ids.ts';

const SECRET_PATHS = ['*.apiKey', '*.token', '*.raw', 'apiKey', 'token', 'raw', 'headers.authorization'];

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
 * `pseudonymise` (platformIdPseudonymiser of the data directory), every platform id in a line is
 * logged as its keyed pseudonym: found by value in every string (platformIdMasker: fields at any
 * depth, child bindings, the message, the error), and numeric ids by the fields
 * PLATFORM_ID_FIELDS names. Children are made when they first write (see withLazyChildren).
 */
export function createLogger(
  config: GatewayConfig['log'],
  destination?: NodeJS.WritableStream,
  pseudonymise?: (value: unknown) => string,
): Logger {
  const pretty = config.pretty ?? (destination === undefined && process.stdout.isTTY === true);
  const masker = pseudonymise ? platformIdMasker(pseudonymise, new Set(PLATFORM_ID_FIELDS)) : undefined;
  const options: pino.LoggerOptions = {
    level: config.level,
    base: { service: 'nexus' },
    // The active span's trace and span ids on every line written inside one (tracing on).
    mixin: logTraceIds.current,
    serializers: { err: masker ? (error: unknown) => masker.mask(serializeError(error)) : serializeError },
    ...(masker
      ? {
          formatters: {
            log: (object: Record<string, unknown>) => masker.mask(object) as Record<string, unknown>,
          },
          hooks: {
            logMethod(this: pino.Logger, args: unknown[], method: pino.LogFn) {
              const masked = args.map((argument) =>
                typeof argument === 'string' ? masker.maskText(argument) : argument,
              );
              method.apply(this, masked as Parameters<pino.LogFn>);
            },
          },
        }
      : {}),
    redact: { paths: SECRET_PATHS, censor: '[redacted]' },
  };
  const prepareBindings = masker
    ? (bindings: Record<string, unknown>) => masker.mask(bindings) as Record<string, unknown>
    : undefined;
  if (pretty) {
    return withLazyChildren(
      pino({
        ...options,
        transport: { target: 'pino-pretty', options: { colorize: true, translateTime: 'HH:MM:ss' } },
      }),
      prepareBindings,
    );
  }
  return withLazyChildren(
    destination ? pino(options, destination as pino.DestinationStream) : pino(options),
    prepareBindings,
  );
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
