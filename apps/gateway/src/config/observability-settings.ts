import { z } from 'zod';
import type { SettingDefinition } from './setting-definition.ts';
import { booleanText } from './setting-schemas.ts';

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

/**
 * What the process tells about itself: log level and format, who may read `/metrics`, and
 * OpenTelemetry traces.
 * Part of the settings table (`settings.ts`), in its order.
 */
export const OBSERVABILITY_SETTINGS = [
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
    env: 'NEXUS_METRICS_TOKEN',
    path: 'metrics.token',
    schema: z.string().min(16),
    description:
      'Bearer token for `/metrics` and the detailed `/ready` (`Authorization: Bearer <token>`), e.g. for Prometheus scraping over the network. Unset: both answer in full only to requests from this machine addressed to it (loopback peer and `Host`, no proxy headers; behind a same-host reverse proxy set this, see docs/deployment.md); from elsewhere `/metrics` is refused (403) and `/ready` says only ready or not. Also read from `NEXUS_METRICS_TOKEN_FILE`.',
    hint: 'use a random string of at least 16 characters',
    secret: true,
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
