import {
  type Attachment,
  type ChannelAdapter,
  type ChannelCapabilities,
  type ChannelHealth,
  type ChannelStartOptions,
  type ConversationKind,
  type ConversationRef,
  type DeliverOptions,
  type IntakeResult,
  type Intent,
  type IntentSink,
  NexusError,
  type ReplyEvent,
  type Revision,
} from '@nexus/protocol';

/** What a test says about a message; everything left out gets a sensible default. */
export interface TestMessage {
  text: string;
  /** Default: `<channel>-message-<n>`, unique per channel. Reuse an id to test de-duplication. */
  id?: string;
  /** Default: `dm:<sender>` for direct, `group-1` for group, `thread-1` for thread. */
  conversationId?: string;
  /** Default: direct. */
  kind?: ConversationKind;
  title?: string;
  /** Default: `user-1`. */
  senderId?: string;
  senderName?: string;
  /** Default: `<channel>:<senderId>`, what adapters set before identity linking. */
  userId?: string;
  /** Default: true in direct conversations, false elsewhere. */
  mentionsAssistant?: boolean;
  attachments?: Attachment[];
  replyTo?: string;
  /**
   * Makes this an edit (new full `text`) or delete (`text: ''`) of an earlier message, as platform
   * channels emit them; give `id` a per-change value such as `<target>:edit:<time>`.
   */
  revises?: Revision;
  /** Default: the channel's clock. */
  receivedAt?: string;
  raw?: unknown;
}

/** One delivery as the channel saw it. */
export interface TestDelivery {
  conversation: ConversationRef;
  events: ReplyEvent[];
}

export interface TestChannel extends ChannelAdapter {
  /** Builds a full Intent and pushes it into the sink given to `start()`. */
  send(message: TestMessage): Promise<IntakeResult>;
  /** Every intent sent so far, as handed to the sink. */
  intents(): Intent[];
  /** Every ReplyEvent delivered to a conversation, in order. */
  events(conversationId: string): ReplyEvent[];
  /** The `reply.end` texts delivered to a conversation, in order. */
  replies(conversationId: string): string[];
  deliveries(conversationId: string): TestDelivery[];
  /**
   * Resolves with the next `reply.end` text of the conversation not yet taken by an earlier
   * call; rejects with a NexusError for an `error` event, or with code `timeout`.
   */
  waitForReply(conversationId: string, options?: { timeoutMs?: number }): Promise<string>;
}

export interface CreateTestChannelOptions {
  /** Channel name used in intents and conversation refs. Default: `test`. */
  name?: string;
  now?: () => number;
  /**
   * `mentioned`: an unaddressed group message is not handed to the sink (`send` answers a
   * `not_addressed` rejection), as platform channels gate them. Default `all`.
   */
  groupMessages?: 'mentioned' | 'all';
  /** What the channel declares; defaults to `TEST_CHANNEL_CAPABILITIES`. */
  capabilities?: Partial<ChannelCapabilities>;
}

/**
 * The synthetic channel records every reply event as it came (files included, so every reply
 * media kind counts as sent), keeps groups and any attachment, and never splits: no platform limit.
 */
export const TEST_CHANNEL_CAPABILITIES: ChannelCapabilities = {
  edits: false,
  typing: true,
  groups: true,
  mediaIn: ['image', 'audio', 'voice', 'video', 'document', 'sticker', 'other'],
  mediaOut: ['image', 'file', 'audio'],
  linking: 'none',
};

type Outcome = { ok: true; text: string } | { ok: false; error: NexusError };

interface Conversation {
  events: ReplyEvent[];
  deliveries: TestDelivery[];
  outcomes: Outcome[];
  taken: number;
  waiters: Array<(outcome: Outcome) => void>;
}

/**
 * A synthetic channel for testing core, lanes and access policies without any platform: tests
 * speak as users with `send` and read what the assistant answered per conversation.
 */
export function createTestChannel(options: CreateTestChannelOptions = {}): TestChannel {
  const name = options.name ?? 'test';
  const now = options.now ?? Date.now;
  const conversations = new Map<string, Conversation>();
  const sent: Intent[] = [];
  let sink: IntentSink | undefined;
  let status: ChannelHealth['status'] = 'stopped';
  let counter = 0;

  const conversationOf = (id: string): Conversation => {
    let conversation = conversations.get(id);
    if (!conversation) {
      conversation = { events: [], deliveries: [], outcomes: [], taken: 0, waiters: [] };
      conversations.set(id, conversation);
    }
    return conversation;
  };

  const settle = (conversation: Conversation, outcome: Outcome): void => {
    const waiter = conversation.waiters.shift();
    if (waiter) {
      conversation.taken += 1;
      conversation.outcomes.push(outcome);
      waiter(outcome);
    } else {
      conversation.outcomes.push(outcome);
    }
  };

  const buildIntent = (message: TestMessage): Intent => {
    counter += 1;
    const kind = message.kind ?? 'direct';
    const senderId = message.senderId ?? 'user-1';
    const defaultConversation = kind === 'direct' ? `dm:${senderId}` : `${kind}-1`;
    return {
      id: message.id ?? `${name}-message-${counter}`,
      channel: name,
      conversation: {
        id: message.conversationId ?? defaultConversation,
        kind,
        ...(message.title === undefined ? {} : { title: message.title }),
      },
      sender: {
        platformId: senderId,
        ...(message.senderName === undefined ? {} : { displayName: message.senderName }),
      },
      userId: message.userId ?? `${name}:${senderId}`,
      text: message.text,
      attachments: message.attachments ?? [],
      ...(message.replyTo === undefined ? {} : { replyTo: message.replyTo }),
      ...(message.revises === undefined ? {} : { revises: message.revises }),
      mentionsAssistant: message.mentionsAssistant ?? kind === 'direct',
      receivedAt: message.receivedAt ?? new Date(now()).toISOString(),
      ...(message.raw === undefined ? {} : { raw: message.raw }),
    };
  };

  return {
    name,
    capabilities: { ...TEST_CHANNEL_CAPABILITIES, ...options.capabilities },

    async start(startOptions: ChannelStartOptions) {
      sink = startOptions.sink;
      status = 'up';
      startOptions.abortSignal?.addEventListener('abort', () => {
        sink = undefined;
        status = 'stopped';
      });
    },

    async stop() {
      sink = undefined;
      status = 'stopped';
    },

    async deliver({ conversation, events }: DeliverOptions) {
      const state = conversationOf(conversation.conversationId);
      const delivery: TestDelivery = { conversation, events: [] };
      state.deliveries.push(delivery);
      for await (const event of events) {
        state.events.push(event);
        delivery.events.push(event);
        if (event.type === 'reply.end') settle(state, { ok: true, text: event.text });
        if (event.type === 'error') {
          const error = new NexusError({
            code: event.code,
            message: event.message,
            retryable: event.retryable,
          });
          settle(state, { ok: false, error });
        }
      }
    },

    health() {
      return { status };
    },

    async send(message: TestMessage) {
      if (!sink) {
        throw new NexusError({
          code: 'channel_unavailable',
          message: `Test channel "${name}" is not started`,
        });
      }
      const intent = buildIntent(message);
      if (
        options.groupMessages === 'mentioned' &&
        intent.conversation.kind !== 'direct' &&
        !intent.mentionsAssistant
      ) {
        return {
          status: 'rejected',
          code: 'not_addressed',
          message: 'Group message not addressed to the assistant',
        };
      }
      sent.push(intent);
      return sink(intent);
    },

    intents() {
      return [...sent];
    },

    events(conversationId: string) {
      return [...(conversations.get(conversationId)?.events ?? [])];
    },

    replies(conversationId: string) {
      return (conversations.get(conversationId)?.events ?? []).flatMap((event) =>
        event.type === 'reply.end' ? [event.text] : [],
      );
    },

    deliveries(conversationId: string) {
      return [...(conversations.get(conversationId)?.deliveries ?? [])];
    },

    waitForReply(conversationId: string, waitOptions: { timeoutMs?: number } = {}) {
      const state = conversationOf(conversationId);
      const unwrap = (outcome: Outcome): string => {
        if (outcome.ok) return outcome.text;
        throw outcome.error;
      };
      const ready = state.outcomes[state.taken];
      if (ready) {
        state.taken += 1;
        return Promise.resolve().then(() => unwrap(ready));
      }
      const timeoutMs = waitOptions.timeoutMs ?? 5000;
      return new Promise<string>((resolve, reject) => {
        const waiter = (outcome: Outcome): void => {
          clearTimeout(timer);
          if (outcome.ok) resolve(outcome.text);
          else reject(outcome.error);
        };
        const timer = setTimeout(() => {
          state.waiters.splice(state.waiters.indexOf(waiter), 1);
          reject(
            new NexusError({
              code: 'timeout',
              message: `No reply in conversation "${conversationId}" within ${timeoutMs} ms`,
            }),
          );
        }, timeoutMs);
        state.waiters.push(waiter);
      });
    },
  };
}
