import type { Tracer } from '@opentelemetry/api';

/**
 * What core needs to trace turns, handed in by the gateway when tracing is on. Core imports only
 * the types of `@opentelemetry/api`: with tracing off not even the API package is loaded.
 */
export interface TurnTracing {
  tracer: Tracer;
  /** `fn` bound to the trace context active now, to run later (a turn queued behind others). */
  bindToActiveContext<T>(fn: () => T): () => T;
}
