import type { ChannelAdapter, ConversationRef, IntakeResult, IntentInput, ReplyEvent } from '@nexus/protocol';
import type { FakeDiscord } from '@nexus/testkit/discord';
import { createDiscordChannel } from '../discord-channel.ts';
import type { DiscordChannelOptions } from '../discord-channel-options.ts';

export interface RecordingSink {
  intents: IntentInput[];
  sink: (intent: IntentInput) => Promise<IntakeResult>;
}

export function createRecordingSink(): RecordingSink {
  const intents: IntentInput[] = [];
  return {
    intents,
    sink: async (intent) => {
      intents.push(intent);
      return { status: 'accepted' };
    },
  };
}

/** Test-speed defaults: fast edits and typing; the watchdog off unless a test wants it. */
export function createTestChannel(
  fake: FakeDiscord,
  overrides: Partial<DiscordChannelOptions> = {},
): ChannelAdapter {
  return createDiscordChannel({
    token: fake.token,
    restApi: fake.restApi,
    streamEditIntervalMs: 40,
    typingIntervalMs: 8000,
    watchdogMs: 0,
    readyTimeoutMs: 10_000,
    ...overrides,
  });
}

export async function* replyEvents(
  ...events: Array<ReplyEvent | (() => Promise<void>)>
): AsyncIterable<ReplyEvent> {
  for (const event of events) {
    if (typeof event === 'function') await event();
    else yield event;
  }
}

export function conversationFor(intent: IntentInput): ConversationRef {
  return {
    channel: intent.channel,
    conversationId: intent.conversation.id,
    kind: intent.conversation.kind,
    intentId: intent.id,
    userId: intent.userId,
    senderPlatformId: intent.sender.platformId,
  };
}

export function textReply(text: string, replyId = 'reply-1'): ReplyEvent[] {
  return [
    { type: 'reply.start', replyId },
    { type: 'reply.delta', replyId, text },
    { type: 'reply.end', replyId, text },
  ];
}
