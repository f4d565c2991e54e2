import { failSpan } from '@nexus/core';
import type { JobQueue } from '@nexus/protocol';
import { context, propagation, ROOT_CONTEXT, SpanKind, type Tracer, trace } from '@opentelemetry/api';

/**
 * A job queue whose jobs carry the trace they were enqueued in: `enqueue` writes the active
 * context as a W3C `traceparent` into the job envelope, and each handler runs in a
 * `nexus.job <name>` span that continues that trace (a child of the enqueuing span), on whichever
 * process takes the job. Needs a registered W3C propagator (the gateway's tracing setup).
 */
export function tracedJobQueue(queue: JobQueue, tracer: Tracer): JobQueue {
  return {
    enqueue(options) {
      if (options.traceparent) return queue.enqueue(options);
      const carrier: Record<string, string> = {};
      propagation.inject(context.active(), carrier);
      return queue.enqueue(carrier.traceparent ? { ...options, traceparent: carrier.traceparent } : options);
    },
    process(options) {
      return queue.process({
        ...options,
        handler: (job) => {
          const parent = job.traceparent
            ? propagation.extract(ROOT_CONTEXT, { traceparent: job.traceparent })
            : ROOT_CONTEXT;
          const span = tracer.startSpan(
            `nexus.job ${job.name}`,
            {
              kind: SpanKind.CONSUMER,
              attributes: {
                'nexus.job.name': job.name,
                'nexus.job.id': job.id,
                'nexus.job.attempt': job.attempt,
              },
            },
            parent,
          );
          return context
            .with(trace.setSpan(parent, span), () => options.handler(job))
            .then(
              () => span.end(),
              (error: unknown) => {
                failSpan(span, error);
                span.end();
                throw error;
              },
            );
        },
      });
    },
    parked: (options) => queue.parked(options),
    retryParked: (options) => queue.retryParked(options),
    counts: (options) => queue.counts(options),
    close: (options) => queue.close(options),
  };
}
