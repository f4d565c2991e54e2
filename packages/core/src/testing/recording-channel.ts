import type { ChannelAdapter, ConversationRef, IntentInput, Logger, ReplyEvent } from '@nexus/protocol';
import { TEST_CHANNEL_CAPABILITIES } from '@nexus/testkit/channel';

export interface RecordedDelivery {
  conversation: ConversationRef;
  events: ReplyEvent[];
  done: boolean;
}

/** A channel that records what core delivers; `beforeDeliver` lets a test hold or fail a delivery. */
export function createRecordingChannel(
  options: { name?: string; beforeDeliver?: (conversation: ConversationRef) => Promise<void> | void } = {},
) {
  const deliveries: RecordedDelivery[] = [];
  const adapter: ChannelAdapter = {
    name: options.name ?? 'test',
    capabilities: TEST_CHANNEL_CAPABILITIES,
    async start() {},
    async stop() {},
    health: () => ({ status: 'up' }),
    async deliver({ conversation, events }) {
      const record: RecordedDelivery = { conversation, events: [], done: false };
      deliveries.push(record);
      await options.beforeDeliver?.(conversation);
      for await (const event of events) record.events.push(event);
      record.done = true;
    },
  };
  return {
    adapter,
    deliveries,
    deliveriesFor: (intentId: string) =>
      deliveries.filter((delivery) => delivery.conversation.intentId === intentId),
    replyTextOf(intentId: string): string | undefined {
      const end = this.deliveriesFor(intentId)
        .flatMap((delivery) => delivery.events)
        .find((event) => event.type === 'reply.end');
      return end?.type === 'reply.end' ? end.text : undefined;
    },
  };
}

export function testIntent(options: {
  id: string;
  conversationId?: string;
  text?: string;
  channel?: string;
}): IntentInput {
  return {
    id: options.id,
    channel: options.channel ?? 'test',
    conversation: { id: options.conversationId ?? 'conversation-1', kind: 'direct' },
    sender: { platformId: 'person-1', displayName: 'Person' },
    userId: 'test:person-1',
    text: options.text ?? 'hello there',
    mentionsAssistant: false,
    receivedAt: new Date().toISOString(),
  };
}

export interface RecordedLogLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  bindings: Record<string, unknown>;
  object: object;
  message?: string;
}

export function createRecordingLogger(
  lines: RecordedLogLine[] = [],
  bindings: Record<string, unknown> = {},
): Logger & {
  lines: RecordedLogLine[];
} {
  const write = (level: RecordedLogLine['level']) => (object: object, message?: string) => {
    lines.push({ level, bindings, object, ...(message === undefined ? {} : { message }) });
  };
  return {
    lines,
    debug: write('debug'),
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
    child: (more) => createRecordingLogger(lines, { ...bindings, ...more }),
  };
}
