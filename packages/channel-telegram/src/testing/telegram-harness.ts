import {
  type ChannelHealth,
  conversationRefOf,
  type IntakeResult,
  type IntentInput,
  intentSchema,
  type ReplyEvent,
} from '@nexus/protocol';
import { type FakeTelegram, type FakeTelegramOptions, startFakeTelegram } from '@nexus/testkit/telegram';
import { createTelegramChannel, type TelegramChannel } from '../telegram-channel.ts';
import type { TelegramChannelOptions } from '../telegram-channel-options.ts';
import { createMemoryUpdateStore } from '../update-store.ts';

export interface TelegramHarness {
  fake: FakeTelegram;
  channel: TelegramChannel;
  /** Every intent the adapter handed to the sink, duplicates included. */
  intents: IntentInput[];
  healthChanges: ChannelHealth[];
  waitForIntents(count: number, timeoutMs?: number): Promise<IntentInput[]>;
  /** Resolves when every reply started by `reply` was delivered. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

export interface TelegramHarnessOptions {
  fake?: FakeTelegram;
  fakeOptions?: FakeTelegramOptions;
  channel?: Partial<TelegramChannelOptions>;
  /** A stand-in for core: the events to deliver for an intent (none when undefined). */
  reply?: (intent: IntentInput) => ReplyEvent[] | undefined;
}

/**
 * The real adapter on real long polling against the fake Bot API, with a recording sink in
 * place of core. Short long-poll and stall settings keep tests fast.
 */
export async function startTelegramHarness(options: TelegramHarnessOptions = {}): Promise<TelegramHarness> {
  const fake = options.fake ?? (await startFakeTelegram(options.fakeOptions));
  const intents: IntentInput[] = [];
  const healthChanges: ChannelHealth[] = [];
  const waiters = new Set<() => void>();
  const deliveries = new Set<Promise<unknown>>();
  const channel = createTelegramChannel({
    token: fake.token,
    apiRoot: fake.apiRoot,
    updateStore: createMemoryUpdateStore(),
    pollingTimeoutSeconds: 1,
    pollingStallMs: 1_500,
    streamEditIntervalMs: 50,
    typingIntervalMs: 1_000,
    random: () => 0,
    onHealthChange: (health) => healthChanges.push(health),
    ...options.channel,
  });
  const sink = async (intent: IntentInput): Promise<IntakeResult> => {
    intents.push(intent);
    for (const waiter of waiters) waiter();
    const events = options.reply?.(intent);
    if (events) {
      const delivery = channel.deliver({
        conversation: conversationRefOf(intentSchema.parse(intent)),
        events: streamOf(events),
      });
      deliveries.add(delivery);
      void delivery.finally(() => deliveries.delete(delivery));
    }
    return { status: 'accepted' };
  };
  await channel.start({ sink });
  return {
    fake,
    channel,
    intents,
    healthChanges,
    waitForIntents(count, timeoutMs = 5_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (intents.length < count) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(intents.slice());
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`expected ${count} intents, got ${intents.length}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async settled() {
      while (deliveries.size > 0) await Promise.all(deliveries);
    },
    async close() {
      await channel.stop();
      if (!options.fake) await fake.close();
    },
  };
}

/** Replays events as a stream, as core's reply stream would hand them over. */
export async function* streamOf(events: ReplyEvent[], delayMs = 0): AsyncIterable<ReplyEvent> {
  for (const event of events) {
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    yield event;
  }
}

export function textReply(text: string): ReplyEvent[] {
  return [
    { type: 'reply.start', replyId: 'r1' },
    { type: 'reply.delta', replyId: 'r1', text },
    { type: 'reply.end', replyId: 'r1', text },
  ];
}
