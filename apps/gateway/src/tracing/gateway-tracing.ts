import type { TurnTracing } from '@nexus/core';
import type { JobQueue } from '@nexus/protocol';

/**
 * Tracing as the gateway hands it around; every OTel import lives behind it (see start-tracing.ts).
 * Its own file, so the SDK's module and the one that loads it both import it without a circle.
 */
export interface GatewayTracing extends TurnTracing {
  /** The queue, its jobs carrying the enqueuer's trace and its handlers running in a span. */
  traceJobQueue(queue: JobQueue): JobQueue;
  /** Exports what is still buffered, then stops the exporter. */
  shutdown(): Promise<void>;
}
