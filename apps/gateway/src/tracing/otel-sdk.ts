import { OpenTelemetry } from '@ai-sdk/otel';
import { enableModelCallTelemetry } from '@nexus/core';
import { context, isSpanContextValid, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { registerTelemetry } from 'ai';
import type { GatewayTracing } from './gateway-tracing.ts';
import { logTraceIds } from './log-trace-ids.ts';
import { tracedJobQueue } from './traced-job-queue.ts';

/**
 * The OTel SDK set up for one process: spans batched to an OTLP/HTTP endpoint (JSON encoding),
 * async-local context so spans nest across awaits, W3C trace context for the job envelope, and
 * the AI SDK's OpenTelemetry integration so every model call and tool call is a span too.
 * Loaded only by `startTracing`, when an endpoint is configured.
 */
export function startOtelSdk(options: {
  url: string;
  headers: Record<string, string>;
  serviceName: string;
  role: string;
}): GatewayTracing {
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': options.serviceName, 'nexus.role': options.role }),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: new OTLPTraceExporter({ url: options.url, headers: options.headers }),
        scheduledDelayMillis: 1000,
      }),
    ],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  const tracer = provider.getTracer('nexus');
  registerTelemetry(new OpenTelemetry({ tracer }));
  enableModelCallTelemetry();
  logTraceIds.install(() => {
    const ids = trace.getActiveSpan()?.spanContext();
    return ids && isSpanContextValid(ids) ? { trace_id: ids.traceId, span_id: ids.spanId } : undefined;
  });
  return {
    tracer,
    bindToActiveContext: (fn) => context.bind(context.active(), fn),
    traceJobQueue: (queue) => tracedJobQueue(queue, tracer),
    async shutdown() {
      logTraceIds.install(undefined);
      await provider.forceFlush();
      await provider.shutdown();
    },
  };
}
