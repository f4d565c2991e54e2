import { join } from 'node:path';
import { createSchedules, type Schedules } from '@nexus/core';
import type { ChannelAdapter, Logger, OutboundIntent, OutboundResult } from '@nexus/protocol';
import type { GatewayConfig } from '../config/gateway-config.ts';
import { privateFilePath } from '../data-dir/private-path.ts';
import type { ToolMetrics } from '../metrics/tool-metrics.ts';
import { createGatewayJobQueue } from './create-gateway-job-queue.ts';

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
  Schedules & {
    bindDelivery(deliver: (outbound: OutboundIntent) => Promise<OutboundResult>): void;
    /** The channels, once made: `/reminders cancel` in a group asks the platform who its admins are. */
    bindChannels(channels: readonly ChannelAdapter[]): void;
  }
> {
  const { config, logger, metrics, now } = options;
  const queue = await createGatewayJobQueue(config, logger, 'schedule-jobs.sqlite', now);
  let deliver: ((outbound: OutboundIntent) => Promise<OutboundResult>) | undefined;
  let channels: readonly ChannelAdapter[] = [];
  const schedules = createSchedules({
    path: privateFilePath(join(config.dataDir, 'schedules.sqlite')),
    defaultTimeZone: config.time.defaultZone,
    queue,
    deliver: async (outbound) =>
      deliver ? deliver(outbound) : { status: 'failed', message: 'not started yet', retryable: true },
    now,
    logger: logger.child({ component: 'schedules' }),
    maxActivePerGroup: config.reminders.maxPerGroup,
    isGroupAdmin: async (intent) => {
      const channel = channels.find((candidate) => candidate.name === intent.channel);
      if (!channel?.isGroupAdmin) return false;
      try {
        return await channel.isGroupAdmin({
          conversationId: intent.conversation.id,
          platformId: intent.sender.platformId,
          abortSignal: AbortSignal.timeout(5_000),
        });
      } catch (error) {
        logger.warn(
          { err: error, channel: channel.name },
          'cannot tell whether the sender administers the group',
        );
        return false;
      }
    },
    onDelivery: ({ channel, outcome }) => metrics.observeDelivery(channel, outcome),
    onToolCall: (outcome) => metrics.observeToolCall('schedule', outcome),
  });
  return {
    ...schedules,
    bindDelivery(next) {
      deliver = next;
    },
    bindChannels(next) {
      channels = next;
    },
    async close() {
      await schedules.close();
      await queue.close({ timeoutMs: 1_000 });
    },
  };
}
