import { randomUUID } from 'node:crypto';
import { type ChannelAdapter, type ConversationRef, NexusError, type ReplyEvent } from '@nexus/protocol';

/** Sends a message to a conversation other than the one being answered (a link approval request). */
export type NotifyConversation = (conversation: ConversationRef, text: string) => Promise<void>;

export interface ConversationNotifier {
  /** Makes a channel reachable; register the same adapters core has. */
  add(adapter: ChannelAdapter): void;
  notify: NotifyConversation;
}

/**
 * Core's outbound path outside a turn: one `reply.start`/`reply.end` pair through the channel's
 * own `deliver`. It fails when the channel is unknown, when `deliver` throws, or when it does not
 * finish in time, so a caller that must be sure the message left (linking) can refuse instead.
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
      await adapter.deliver({ conversation, events: events(), abortSignal: AbortSignal.timeout(timeoutMs) });
    },
  };
}
