import type { IntakeResult } from '@nexus/protocol';

/**
 * Whether core took responsibility for an intent, so the channel may acknowledge the platform
 * message. `accepted` and `duplicate` were taken; a rejection was taken too (it is final: the
 * person was told, or the message is refused for good) unless it is retryable — a busy store, a
 * core shutting down — and then the platform must hand the message out again.
 */
export function wasIntentTaken(result: IntakeResult): boolean {
  if (result.status !== 'rejected') return true;
  const retryable = (result as { retryable?: unknown }).retryable === true;
  return !(retryable || result.code === 'shutting_down');
}
