import { describeFailure } from '@nexus/core';
import type { Logger } from '@nexus/protocol';
import type { GatewayTracing } from './start-tracing.ts';

/** The running role, whose close also exports the spans still buffered (the last turns' included). */
export function flushTracesAfter<T extends { close(): Promise<void> }>(
  running: T,
  tracing: GatewayTracing,
  logger: Logger,
): T {
  return {
    ...running,
    close: async () => {
      await running.close();
      await tracing.shutdown().catch((error: unknown) => {
        logger.warn({ error: describeFailure(error) }, 'could not export the last spans');
      });
    },
  };
}
