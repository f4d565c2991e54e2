import type { Attributes, Span, SpanStatusCode, Tracer } from '@opentelemetry/api';

/** `SpanStatusCode.ERROR`, without loading the API package for one constant. */
const STATUS_ERROR = 2 as SpanStatusCode;

/**
 * Runs `work` inside a span that is active for everything it awaits (so spans opened below, the
 * AI SDK's included, become its children). Without a tracer `work` runs as is: tracing off costs
 * one branch. The span records a thrown error and ends when `work` settles, unless `keepOpen`
 * says the span outlives it (the caller then ends it).
 */
export function inSpan<T>(
  tracer: Tracer | undefined,
  name: string,
  attributes: Attributes,
  work: (span: Span | undefined) => Promise<T>,
  options: { keepOpen?: boolean } = {},
): Promise<T> {
  if (!tracer) return work(undefined);
  return tracer.startActiveSpan(name, { attributes }, async (span) => {
    try {
      const result = await work(span);
      if (!options.keepOpen) span.end();
      return result;
    } catch (error) {
      failSpan(span, error);
      span.end();
      throw error;
    }
  });
}

export function failSpan(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({
    code: STATUS_ERROR,
    message: error instanceof Error ? error.message : String(error),
  });
}
