import type { Tracer } from '@opentelemetry/api';

/**
 * What core needs to trace turns, handed in by the gateway when tracing is on. Core imports only
 * the types of `@opentelemetry/api`: with tracing off not even the API package is loaded.
 */
export interface TurnTracing {
  tracer: Tracer;
  /** `fn` bound to the trace context active now, to run later (a turn queued behind others). */
  bindToActiveContext<T>(fn: () => T): () => T;
  /**
   * What span attributes carry instead of an id built from platform ids (an intent id holds a
   * WhatsApp number or a chat id): the gateway's keyed pseudonym. Without it, no such id is put
   * on a span at all.
   */
  pseudonymise?: (id: string) => string;
}

/** The attribute value for a platform-derived id, or undefined when it must stay off the span. */
export function spanIdOf(
  tracing: Pick<TurnTracing, 'pseudonymise'> | undefined,
  id: string,
): string | undefined {
  return tracing?.pseudonymise ? tracing.pseudonymise(id) : undefined;
}
