import type { Logger } from '@nexus/protocol';
import type { GatewayTracing } from './gateway-tracing.ts';

const FLUSH_TIMEOUT_MS = 3000;

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
      // A receiver that does not answer must not hold the process past its shutdown deadline.
      let timer: NodeJS.Timeout | undefined;
      const gaveUp = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), FLUSH_TIMEOUT_MS);
      });
      const outcome = await Promise.race([tracing.shutdown().then(() => 'flushed' as const), gaveUp]).catch(
        (error: unknown) => {
          logger.warn({ err: error }, 'could not export the last spans');
          return 'failed' as const;
        },
      );
      clearTimeout(timer);
      if (outcome === 'timeout')
        logger.warn({ timeoutMs: FLUSH_TIMEOUT_MS }, 'gave up exporting the last spans');
    },
  };
}
