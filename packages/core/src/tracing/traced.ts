import type { Attributes, Tracer } from '@opentelemetry/api';
import { inSpan } from './in-span.ts';

/** What a stage's span records besides its name. */
export interface SpanShape<Args extends unknown[], Result> {
  /** Attributes known when the stage starts. */
  attributes?: (...args: Args) => Attributes;
  /** Attributes learned from the stage's result, set before the span ends. */
  result?: (result: Result) => Attributes;
  /** Keeps the span open until this settles: work that outlives the stage (a turn's delivery). */
  until?: (result: Result) => Promise<unknown>;
}

/**
 * The stage (or port) with a span around each call, active for everything it awaits, so spans
 * opened below become its children. The composers wrap stages with it, the way the gateway's
 * traced job queue wraps a port: stage files never see tracing. Without a tracer the stage itself
 * comes back, so tracing off costs nothing per call.
 */
export function traced<Args extends unknown[], Result>(
  tracer: Tracer | undefined,
  name: string,
  stage: (...args: Args) => Promise<Result>,
  shape: SpanShape<Args, Result> = {},
): (...args: Args) => Promise<Result> {
  if (!tracer) return stage;
  const { until } = shape;
  return (...args) =>
    inSpan(
      tracer,
      name,
      shape.attributes?.(...args) ?? {},
      async (span) => {
        const result = await stage(...args);
        if (!span) return result;
        if (shape.result) span.setAttributes(shape.result(result));
        if (until) void until(result).finally(() => span.end());
        return result;
      },
      { keepOpen: until !== undefined },
    );
}
