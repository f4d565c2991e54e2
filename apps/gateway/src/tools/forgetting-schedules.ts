import type { AccessMemoryPort, Schedules } from '@nexus/core';
import type { Logger } from '@nexus/protocol';

/**
 * The memory port `/forget-me` uses, extended so that forgetting a person also cancels their
 * reminders: a reminder holds what they asked to be told, and must not reach them afterwards.
 */
export function forgettingSchedules(
  memory: AccessMemoryPort,
  schedules: Schedules,
  logger: Logger,
): AccessMemoryPort {
  return {
    list: (options) => memory.list(options),
    delete: (options) => memory.delete(options),
    async reset(options) {
      const result = await memory.reset(options);
      const cancelled = schedules.store.cancelAllOf(options.userId);
      if (cancelled > 0)
        logger.info({ userId: options.userId, cancelled }, 'reminders cancelled by /forget-me');
      return result;
    },
  };
}
