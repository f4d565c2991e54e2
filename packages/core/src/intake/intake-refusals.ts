import type { IntakeResult } from '@nexus/protocol';

/** A step's answer that ends the intake here (refused, a duplicate, or accepted and dropped). */
export function isIntakeResult<T extends object>(value: T | IntakeResult): value is IntakeResult {
  return 'status' in value;
}

export function channelUnavailable(channel: string): IntakeResult {
  return {
    status: 'rejected',
    code: 'channel_unavailable',
    message: `No channel named "${channel}" is registered.`,
  };
}

export function shuttingDown(): IntakeResult {
  return {
    status: 'rejected',
    code: 'shutting_down',
    message: 'The assistant is shutting down; try again shortly.',
    retryable: true,
  };
}

/** The store is busy or full: not taken, so the platform keeps the message and redelivers it. */
export function storeUnavailable(): IntakeResult {
  return {
    status: 'rejected',
    code: 'internal',
    message: 'Messages cannot be stored right now; try again shortly.',
    retryable: true,
  };
}

export function laneFull(): IntakeResult {
  return {
    status: 'rejected',
    code: 'rate_limited',
    message: 'Too many messages are waiting in this conversation; please wait for the replies.',
    retryable: true,
  };
}
