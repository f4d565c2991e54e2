import {
  conversationRefOf,
  type IntakeResult,
  type IntentInput,
  intentSchema,
  NexusError,
  type ReplyEvent,
} from '@nexus/protocol';
import { describe, expect, it } from 'vitest';
import { createTestChannel, type TestChannel } from './create-test-channel.ts';

async function* replyStream(events: ReplyEvent[]): AsyncIterable<ReplyEvent> {
  for (const event of events) {
    await Promise.resolve();
    yield event;
  }
}

/** A trivial core: validates, de-duplicates by id, and echoes the text back (or fails on "fail"). */
function echoSink(channel: TestChannel, received: IntentInput[]) {
  const seen = new Set<string>();
  return async (input: IntentInput): Promise<IntakeResult> => {
    received.push(input);
    const parsed = intentSchema.safeParse(input);
    if (!parsed.success) return { status: 'rejected', code: 'invalid_intent', message: parsed.error.message };
    const intent = parsed.data;
    if (seen.has(intent.id)) return { status: 'duplicate' };
    seen.add(intent.id);
    const events: ReplyEvent[] =
      intent.text === 'fail'
        ? [{ type: 'error', code: 'model_unavailable', message: 'No model', retryable: true }]
        : [
            { type: 'typing' },
            { type: 'reply.start', replyId: intent.id },
            { type: 'reply.delta', replyId: intent.id, text: 'echo: ' },
            { type: 'reply.delta', replyId: intent.id, text: intent.text },
            { type: 'reply.end', replyId: intent.id, text: `echo: ${intent.text}` },
          ];
    setTimeout(() => {
      void channel.deliver({ conversation: conversationRefOf(intent), events: replyStream(events) });
    }, 1);
    return { status: 'accepted' };
  };
}

async function startedChannel() {
  const channel = createTestChannel({ name: 'testchat', now: () => Date.UTC(2026, 0, 2, 3, 4, 5) });
  const received: IntentInput[] = [];
  await channel.start({ sink: echoSink(channel, received) });
  return { channel, received };
}

describe('createTestChannel', () => {
  it('refuses to send before start', async () => {
    const channel = createTestChannel();
    expect(channel.health().status).toBe('stopped');
    await expect(channel.send({ text: 'hi' })).rejects.toMatchObject({ code: 'channel_unavailable' });
  });

  it('builds valid intents with defaults for a direct conversation', async () => {
    const { channel, received } = await startedChannel();
    expect(channel.health().status).toBe('up');
    expect(await channel.send({ text: 'hello' })).toEqual({ status: 'accepted' });
    const intent = intentSchema.parse(received[0]);
    expect(intent).toEqual({
      id: 'testchat-message-1',
      channel: 'testchat',
      conversation: { id: 'dm:user-1', kind: 'direct' },
      sender: { platformId: 'user-1' },
      userId: 'testchat:user-1',
      text: 'hello',
      attachments: [],
      mentionsAssistant: true,
      receivedAt: '2026-01-02T03:04:05.000Z',
    });
    expect(channel.intents()).toEqual([intent]);
  });

  it('builds group intents that do not mention the assistant unless told', async () => {
    const { channel, received } = await startedChannel();
    await channel.send({ text: 'chatter', kind: 'group', senderId: 'u2', senderName: 'Ann' });
    await channel.send({ text: 'hey bot', kind: 'group', conversationId: 'g-42', mentionsAssistant: true });
    const [first, second] = received.map((input) => intentSchema.parse(input));
    expect(first?.conversation).toEqual({ id: 'group-1', kind: 'group' });
    expect(first?.sender).toEqual({ platformId: 'u2', displayName: 'Ann' });
    expect(first?.mentionsAssistant).toBe(false);
    expect(second?.conversation.id).toBe('g-42');
    expect(second?.mentionsAssistant).toBe(true);
  });

  it('returns what the sink says, e.g. duplicate for a reused id', async () => {
    const { channel } = await startedChannel();
    expect(await channel.send({ text: 'once', id: 'm-1' })).toEqual({ status: 'accepted' });
    expect(await channel.send({ text: 'once', id: 'm-1' })).toEqual({ status: 'duplicate' });
    const rejected = await channel.send({ text: 'x'.repeat(40_000) });
    expect(rejected.status).toBe('rejected');
  });

  it('records deliveries and resolves waitForReply with the reply.end text', async () => {
    const { channel } = await startedChannel();
    const waiting = channel.waitForReply('dm:user-1', { timeoutMs: 2000 });
    await channel.send({ text: 'ping' });
    expect(await waiting).toBe('echo: ping');
    expect(channel.replies('dm:user-1')).toEqual(['echo: ping']);
    expect(channel.events('dm:user-1').map((event) => event.type)).toEqual([
      'typing',
      'reply.start',
      'reply.delta',
      'reply.delta',
      'reply.end',
    ]);
    expect(channel.deliveries('dm:user-1')[0]?.conversation).toMatchObject({
      channel: 'testchat',
      conversationId: 'dm:user-1',
      intentId: 'testchat-message-1',
    });
  });

  it('hands out replies in order, including ones that arrived before the wait', async () => {
    const { channel } = await startedChannel();
    await channel.send({ text: 'one' });
    await channel.send({ text: 'two' });
    expect(await channel.waitForReply('dm:user-1')).toBe('echo: one');
    expect(await channel.waitForReply('dm:user-1')).toBe('echo: two');
    const third = channel.waitForReply('dm:user-1');
    await channel.send({ text: 'three' });
    expect(await third).toBe('echo: three');
  });

  it('rejects waitForReply with the error event as a NexusError', async () => {
    const { channel } = await startedChannel();
    await channel.send({ text: 'fail' });
    const failure = channel.waitForReply('dm:user-1');
    await expect(failure).rejects.toBeInstanceOf(NexusError);
    await expect(failure).rejects.toMatchObject({ code: 'model_unavailable', retryable: true });
  });

  it('times out when no reply comes', async () => {
    const { channel } = await startedChannel();
    await expect(channel.waitForReply('nobody', { timeoutMs: 20 })).rejects.toMatchObject({
      code: 'timeout',
    });
    // A timed-out wait does not swallow the next reply.
    await channel.send({ text: 'late', conversationId: 'nobody' });
    expect(await channel.waitForReply('nobody')).toBe('echo: late');
  });

  it('stops accepting messages after stop or abort', async () => {
    const { channel } = await startedChannel();
    await channel.stop();
    expect(channel.health().status).toBe('stopped');
    await expect(channel.send({ text: 'hi' })).rejects.toMatchObject({ code: 'channel_unavailable' });
    const controller = new AbortController();
    await channel.start({ sink: async () => ({ status: 'accepted' }), abortSignal: controller.signal });
    expect(await channel.send({ text: 'hi' })).toEqual({ status: 'accepted' });
    controller.abort();
    await expect(channel.send({ text: 'hi' })).rejects.toMatchObject({ code: 'channel_unavailable' });
  });
});
