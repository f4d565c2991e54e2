import { join } from 'node:path';
import { createSchedules, type Schedules } from '@nexus/core';
import type { Logger, OutboundIntent, OutboundResult } from '@nexus/protocol';
import { createGatewayJobQueue } from '../composition/create-gateway-job-queue.ts';
import type { GatewayConfig } from '../config/gateway-config.ts';
import { privateFilePath } from '../data-dir/private-path.ts';
import type { ToolMetrics } from './tool-metrics.ts';

/**
 * Reminders and scheduled messages: the schedules in `<dataDir>/schedules.sqlite`, their firings
 * as delayed jobs in Redis when it is configured (any gateway process may deliver them) or in
 * `<dataDir>/schedule-jobs.sqlite`. `deliver` is bound later, once the core exists.
 */
export async function createGatewaySchedules(options: {
  config: GatewayConfig;
  logger: Logger;
  metrics: ToolMetrics;
  now: () => number;
}): Promise<
  Schedules & { bindDelivery(deliver: (outbound: OutboundIntent) => Promise<OutboundResult>): void }
> {
  const { config, logger, metrics, now } = options;
  const queue = await createGatewayJobQueue(config, logger, 'schedule-jobs.sqlite', now);
  let deliver: ((outbound: OutboundIntent) => Promise<OutboundResult>) | undefined;
  const schedules = createSchedules({
    path: privateFilePath(join(config.dataDir, 'schedules.sqlite')),
    defaultTimeZone: config.time.defaultZone,
    queue,
    deliver: async (outbound) =>
      deliver ? deliver(outbound) : { status: 'failed', message: 'not started yet', retryable: true },
    now,
    logger: logger.child({ component: 'schedules' }),
    maxActivePerGroup: config.reminders.maxPerGroup,
    onDelivery: ({ channel, outcome }) => metrics.observeDelivery(channel, outcome),
    onToolCall: (outcome) => metrics.observeToolCall('schedule', outcome),
  });
  return {
    ...schedules,
    bindDelivery(next) {
      deliver = next;
    },
    async close() {
      await schedules.close();
      await queue.close({ timeoutMs: 1_000 });
    },
  };
}
