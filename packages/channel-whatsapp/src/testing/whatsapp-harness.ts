import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IntakeResult, IntentInput, IntentSink, ReplyEvent } from '@nexus/protocol';
import { createFakeWhatsAppSocketFactory, type FakeWhatsAppSocketFactory } from '@nexus/testkit/whatsapp';
import { createWhatsAppChannel, type WhatsAppChannel } from '../whatsapp-channel.ts';
import type { WhatsAppChannelOptions } from '../whatsapp-channel-options.ts';

/** A sink that records every intent, like core's intake would receive them. */
export function createRecordingSink(result: IntakeResult = { status: 'accepted' }) {
  const intents: IntentInput[] = [];
  const sink: IntentSink = async (intent) => {
    intents.push(intent);
    return result;
  };
  return { sink, intents };
}

export async function* replyEvents(...events: ReplyEvent[]): AsyncIterable<ReplyEvent> {
  for (const event of events) yield event;
}

export function textReply(text: string, replyId = 'reply-1'): AsyncIterable<ReplyEvent> {
  return replyEvents(
    { type: 'reply.start', replyId },
    { type: 'reply.delta', replyId, text },
    { type: 'reply.end', replyId, text },
  );
}

/** A temp auth file plus channels on fake sockets; `cleanup` stops them and removes the file. */
export function createWhatsAppHarness() {
  const directory = mkdtempSync(join(tmpdir(), 'nexus-wa-channel-'));
  const authPath = join(directory, 'whatsapp.sqlite');
  const channels: WhatsAppChannel[] = [];
  return {
    authPath,
    channel(
      factory: FakeWhatsAppSocketFactory = createFakeWhatsAppSocketFactory(),
      options: Partial<WhatsAppChannelOptions> = {},
    ) {
      const channel = createWhatsAppChannel({
        authPath,
        socketFactory: factory.factory,
        reconnect: { initialMs: 5, maxMs: 40 },
        sendPacingMs: 0,
        onQr: () => {},
        ...options,
      });
      channels.push(channel);
      return channel;
    },
    async cleanup() {
      for (const channel of channels) await channel.stop();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
