import { randomUUID } from 'node:crypto';
import {
  type ChannelAdapter,
  type ConversationRef,
  type DeliverOptions,
  NexusError,
  type ReplyEvent,
} from '@nexus/protocol';

/** Sends a message to a conversation other than the one being answered (a link approval request). */
export type NotifyConversation = (conversation: ConversationRef, text: string) => Promise<void>;

export interface ConversationNotifier {
  /** Makes a channel reachable; register the same adapters core has. */
  add(adapter: ChannelAdapter): void;
  notify: NotifyConversation;
}

interface OutcomeAdapter {
  deliverWithOutcome(options: DeliverOptions): Promise<{ status: string }>;
}

/**
 * Core's outbound path outside a turn: one `reply.start`/`reply.end` pair through the channel's
 * own `deliver`. It fails when the channel is unknown, when `deliver` throws or does not finish in
 * time, or when an adapter that reports outcomes says the message did not arrive, so a caller that must be sure the message left (linking) can refuse instead.
 */
export function createConversationNotifier(options: { timeoutMs?: number } = {}): ConversationNotifier {
  const adapters = new Map<string, ChannelAdapter>();
  const timeoutMs = options.timeoutMs ?? 15_000;
  return {
    add(adapter) {
      adapters.set(adapter.name, adapter);
    },
    async notify(conversation, text) {
      const adapter = adapters.get(conversation.channel);
      if (!adapter) {
        throw new NexusError({
          code: 'channel_unavailable',
          message: `The ${conversation.channel} channel is not running.`,
        });
      }
      const replyId = randomUUID();
      async function* events(): AsyncGenerator<ReplyEvent> {
        yield { type: 'reply.start', replyId };
        yield { type: 'reply.end', replyId, text };
      }
      const options = { conversation, events: events(), abortSignal: AbortSignal.timeout(timeoutMs) };
      // An adapter that can say whether the message arrived (Telegram: blocked, chat gone) is asked.
      const withOutcome = (adapter as Partial<OutcomeAdapter>).deliverWithOutcome;
      if (typeof withOutcome !== 'function') return adapter.deliver(options);
      const outcome = await withOutcome.call(adapter, options);
      if (outcome.status !== 'delivered') {
        throw new NexusError({
          code: 'channel_unavailable',
          message: `The ${conversation.channel} channel could not deliver the message (${outcome.status}).`,
        });
      }
    },
  };
}
