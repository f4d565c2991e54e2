import type { Logger } from '@nexus/protocol';
import type { GatewayConfig } from '../config/gateway-config.ts';
import type { GatewayTracing } from './gateway-tracing.ts';

export type { GatewayTracing } from './gateway-tracing.ts';

/** Where spans go, or undefined when tracing is off (no OTLP endpoint set). */
export function tracesUrlOf(tracing: GatewayConfig['tracing']): string | undefined {
  if (tracing.tracesEndpoint) return tracing.tracesEndpoint;
  if (tracing.endpoint) return `${tracing.endpoint.replace(/\/+$/, '')}/v1/traces`;
  return undefined;
}

/**
 * Turns tracing on when an OTLP endpoint is configured. Off, nothing is imported: the OTel SDK
 * and exporter load only through the dynamic import below, so a process without tracing pays for
 * neither (core then runs without a tracer and makes no span at all).
 */
export async function startTracing(
  config: GatewayConfig,
  role: string,
  logger: Logger,
): Promise<GatewayTracing | undefined> {
  const url = tracesUrlOf(config.tracing);
  if (!url) return undefined;
  const { startOtelSdk } = await import('./otel-sdk.ts');
  const tracing = startOtelSdk({
    url,
    headers: config.tracing.headers ?? {},
    serviceName: config.tracing.serviceName,
    role,
  });
  logger.info({ url, serviceName: config.tracing.serviceName }, 'OpenTelemetry tracing on');
  return tracing;
}
