import {
  type ChannelAdapter,
  type Logger,
  type OutboundIntent,
  type OutboundResult,
  outboundIntentSchema,
  type ReplyEvent,
} from '@nexus/protocol';
import type { AccessControl } from '../access/access-decision.ts';

export interface DeliverOutboundOptions {
  adapters: ReadonlyMap<string, ChannelAdapter>;
  access?: AccessControl;
  logger: Logger;
  /** How long the adapter may take to deliver. */
  timeoutMs: number;
  /** Aborted when the core stops. */
  stopSignal: AbortSignal;
}

/**
 * A message the assistant starts: checked against access as it stands now, then handed to the
 * adapter's `deliver()` as one complete reply. Never throws: the result says what happened.
 */
export async function deliverOutbound(
  options: DeliverOutboundOptions,
  input: OutboundIntent,
): Promise<OutboundResult> {
  const parsed = outboundIntentSchema.safeParse(input);
  if (!parsed.success) return { status: 'failed', message: 'invalid outbound intent', retryable: false };
  const outbound = parsed.data;
  const log = { outboundId: outbound.id, channel: outbound.conversation.channel, userId: outbound.userId };
  if (outbound.conversation.userId !== outbound.userId) {
    return { status: 'refused', reason: 'the conversation belongs to someone else' };
  }
  if (options.access?.mayReach && !options.access.mayReach(outbound.conversation)) {
    options.logger.info(log, 'proactive message refused: the person may no longer be reached here');
    return { status: 'refused', reason: 'access no longer allows it' };
  }
  const adapter = options.adapters.get(outbound.conversation.channel);
  if (!adapter) {
    return {
      status: 'failed',
      message: `channel ${outbound.conversation.channel} is not configured`,
      retryable: true,
    };
  }
  if (options.stopSignal.aborted) return { status: 'failed', message: 'shutting down', retryable: true };
  const replyId = `outbound:${outbound.id}`;
  async function* events(): AsyncIterable<ReplyEvent> {
    yield { type: 'reply.start', replyId };
    yield { type: 'reply.delta', replyId, text: outbound.text };
    yield { type: 'reply.end', replyId, text: outbound.text };
  }
  const abortSignal = AbortSignal.any([options.stopSignal, AbortSignal.timeout(options.timeoutMs)]);
  try {
    // A proactive message answers no platform message: carrying the request's id would make it a
    // reply to an old message and, on Discord, reuse that reply's idempotency nonce (Discord then
    // returns the old message instead of sending this one).
    const conversation = { ...outbound.conversation, intentId: outbound.id };
    await adapter.deliver({ conversation, events: events(), abortSignal });
    return { status: 'delivered' };
  } catch (error) {
    options.logger.warn({ ...log, err: error }, 'proactive message not delivered');
    return {
      status: 'failed',
      message: error instanceof Error ? error.message : String(error),
      retryable: true,
    };
  }
}
