import { NexusError, type ReplyEvent, type ServerFrame } from '@nexus/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, replyEvents, startHarness, TestClient } from './testing/channel-test-harness.ts';
import type { WebUploads } from './web-uploads.ts';

type ErrorFrame = Extract<ServerFrame, { type: 'error' }>;

let harness: Harness | undefined;
const clients: TestClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await harness?.close();
  harness = undefined;
});

async function greeted(clientId: string, hello: Record<string, unknown> = {}): Promise<TestClient> {
  const client = await TestClient.greeted(harness!.url, clientId, hello);
  clients.push(client);
  return client;
}

async function sendMessage(client: TestClient, clientMessageId: string, conversationId: string, text = 'hi') {
  client.send({ type: 'message', clientMessageId, conversationId, text });
  return client.next(
    (frame) =>
      (frame.type === 'accepted' || frame.type === 'error') &&
      'clientMessageId' in frame &&
      frame.clientMessageId === clientMessageId,
  );
}

describe('hello and messages', () => {
  it('answers hello with welcome carrying limits and the operator notice', async () => {
    harness = await startHarness({ notice: () => 'No model provider configured: set NEXUS_MODEL_PROVIDER' });
    const client = await TestClient.open(harness.url);
    clients.push(client);
    client.send({ type: 'hello', v: 1, clientId: 'browser-1', displayName: 'Ada' });
    const welcome = await client.next((frame) => frame.type === 'welcome');
    expect(welcome).toMatchObject({
      type: 'welcome',
      v: 1,
      heartbeatMs: 30_000,
      limits: { maxFrameBytes: 64 * 1024, maxTextChars: 32_000, messagesPerMinute: 30 },
      notice: 'No model provider configured: set NEXUS_MODEL_PROVIDER',
    });
  });

  it('announces voice notes in welcome only when a transcriber will turn them into text', async () => {
    // No upload exists here: only what welcome announces is under test.
    const uploads: WebUploads = {
      describe: async () => undefined,
      read: async () => {
        throw new NexusError({ code: 'attachment_unavailable', message: 'no uploads in this test' });
      },
    };
    for (const voiceNotes of [true, false]) {
      harness = await startHarness({ uploads, voiceNotes });
      const client = await TestClient.open(harness.url);
      clients.push(client);
      client.send({ type: 'hello', v: 1, clientId: 'browser-1' });
      const welcome = await client.next((frame) => frame.type === 'welcome');
      expect(welcome).toMatchObject({ limits: { voiceNotes, maxAttachments: 10 } });
      await client.close();
      clients.splice(0);
      await harness.close();
      harness = undefined;
    }
  });

  it('closes with 4408 when no hello arrives in time', async () => {
    harness = await startHarness({ helloTimeoutMs: 100 });
    const client = await TestClient.open(harness.url);
    clients.push(client);
    expect((await client.closed).code).toBe(4408);
  });

  it('turns a message into an Intent, accepts it, and marks a resend as duplicate', async () => {
    harness = await startHarness({ now: () => Date.parse('2026-01-02T03:04:05.000Z') });
    const client = await greeted('browser-1', { displayName: 'Ada' });
    const accepted = await sendMessage(client, 'm-1', 'conv-1', 'hello there');
    expect(accepted).toEqual({
      type: 'accepted',
      clientMessageId: 'm-1',
      conversationId: 'conv-1',
      duplicate: false,
    });
    expect(harness.intents).toEqual([
      {
        id: 'web:browser-1:m-1',
        channel: 'web',
        conversation: { id: 'conv-1', kind: 'direct' },
        sender: { platformId: 'browser-1', displayName: 'Ada' },
        userId: 'web:browser-1',
        text: 'hello there',
        attachments: [],
        mentionsAssistant: true,
        receivedAt: '2026-01-02T03:04:05.000Z',
      },
    ]);
    expect(await sendMessage(client, 'm-1', 'conv-1', 'hello there')).toMatchObject({ duplicate: true });
  });

  it('answers bad, unknown and oversized frames with error frames and keeps the connection', async () => {
    harness = await startHarness();
    const client = await greeted('browser-1');
    const cases: Array<[unknown, string]> = [
      ['{not json', 'bad_frame'],
      ['[1,2,3]', 'bad_frame'],
      [{ type: 42 }, 'bad_frame'],
      [{ type: 'message', clientMessageId: 'x', conversationId: 'has spaces', text: 'a' }, 'bad_frame'],
      [{ type: 'message', clientMessageId: 'x', conversationId: 'c', text: 7 }, 'bad_frame'],
      [{ type: 'subscribe', topic: 'all' }, 'unknown_frame'],
      [{ type: 'hello', clientId: 'again' }, 'bad_frame'],
      [Buffer.from([0xc3, 0x28, 0xff]), 'bad_frame'],
      [
        { type: 'message', clientMessageId: 'big', conversationId: 'c', text: 'x'.repeat(32_001) },
        'payload_too_large',
      ],
    ];
    for (const [frame, code] of cases) {
      client.send(frame);
      const error = await client.next<ErrorFrame>((received) => received.type === 'error');
      expect(error.code).toBe(code);
      expect(error.retryable).toBe(false);
    }
    client.socket.send(Buffer.from('{"type":"ping"}'), { binary: true });
    expect((await client.next<ErrorFrame>((frame) => frame.type === 'error')).message).toMatch(/binary/);
    client.send({ type: 'ping', t: 5 });
    expect(await client.next((frame) => frame.type === 'pong')).toEqual({ type: 'pong', t: 5 });
    expect(await sendMessage(client, 'm-ok', 'c')).toMatchObject({ type: 'accepted' });
    expect(harness.intents.map((intent) => intent.id)).toEqual(['web:browser-1:m-ok']);
  });

  it('requires hello before messages', async () => {
    harness = await startHarness();
    const client = await TestClient.open(harness.url);
    clients.push(client);
    client.send({ type: 'message', clientMessageId: 'm', conversationId: 'c', text: 'hi' });
    expect(await client.next((frame) => frame.type === 'error')).toMatchObject({ code: 'bad_frame' });
    expect(harness.intents).toHaveLength(0);
  });

  it('passes intake refusals and failures back as error frames', async () => {
    harness = await startHarness();
    const client = await greeted('browser-1');
    harness.setSink(async () => ({ status: 'rejected', code: 'shutting_down', message: 'draining' }));
    expect(await sendMessage(client, 'm-1', 'c')).toEqual({
      type: 'error',
      code: 'shutting_down',
      message: 'draining',
      retryable: true,
      clientMessageId: 'm-1',
    });
    harness.setSink(async () => {
      throw new Error('database exploded at /secret/path');
    });
    const failure = await sendMessage(client, 'm-2', 'c');
    expect(failure).toMatchObject({ type: 'error', code: 'internal', retryable: true });
    expect(JSON.stringify(failure)).not.toContain('/secret/path');
    harness.setSink(async () => ({ status: 'accepted' }));
    expect(await sendMessage(client, 'm-3', 'c')).toMatchObject({ type: 'accepted' });
  });
});

describe('delivery, seq and resume', () => {
  it('sends events in order with increasing seq to every tab of the client and to nobody else', async () => {
    harness = await startHarness();
    const tab1 = await greeted('browser-1');
    const tab2 = await greeted('browser-1');
    const stranger = await greeted('browser-2');
    await sendMessage(tab1, 'm-1', 'conv-1');
    const events = replyEvents('r-1', ['Hel', 'lo', ' world']);
    await harness.deliver(harness.intents[0]!, events);
    for (const tab of [tab1, tab2]) {
      await tab.next((frame) => frame.type === 'event' && frame.event.type === 'reply.end');
      const received = tab.eventFrames('conv-1');
      expect(received.map((frame) => frame.event)).toEqual(events);
      const seqs = received.map((frame) => frame.seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      expect(new Set(seqs).size).toBe(seqs.length);
    }
    await sendMessage(stranger, 'ping-it', 'conv-2');
    expect(stranger.eventFrames()).toHaveLength(0);
  });

  it('tells the person’s other tabs of a message taken, once, and nobody else', async () => {
    harness = await startHarness();
    const sender = await greeted('browser-1');
    const otherTab = await greeted('browser-1');
    const stranger = await greeted('browser-2');
    expect(await sendMessage(sender, 'm-1', 'conv-1', 'And on Sunday?')).toMatchObject({ type: 'accepted' });
    expect(await otherTab.next((frame) => frame.type === 'sent')).toEqual({
      type: 'sent',
      conversationId: 'conv-1',
      clientMessageId: 'm-1',
      text: 'And on Sunday?',
    });
    // The same message again (a reconnecting sender) is a duplicate: not told twice.
    expect(await sendMessage(sender, 'm-1', 'conv-1', 'And on Sunday?')).toMatchObject({ duplicate: true });
    await sendMessage(sender, 'm-2', 'conv-1', 'Thanks');
    await otherTab.next((frame) => frame.type === 'sent' && frame.clientMessageId === 'm-2');
    expect(otherTab.frames.filter((frame) => frame.type === 'sent')).toHaveLength(2);
    expect(sender.frames.some((frame) => frame.type === 'sent')).toBe(false);
    expect(stranger.frames.some((frame) => frame.type === 'sent')).toBe(false);
  });

  it('marks a reply that answers none of the person’s messages (a reminder) as unprompted, and an answer not', async () => {
    harness = await startHarness();
    const tab = await greeted('browser-1');
    await sendMessage(tab, 'm-1', 'conv-1');
    const answer = harness.intents[0]!;
    await harness.deliver(answer, replyEvents('r-1', ['Hi']));
    // An outbound message is delivered under its own id, not under one of the person's messages.
    await harness.deliver(
      { ...answer, id: 'outbound-reminder-1' },
      replyEvents('r-2', ['Time to water the plants']),
    );
    await tab.next(
      (frame) => frame.type === 'event' && frame.event.type === 'reply.end' && frame.event.replyId === 'r-2',
    );
    const starts = tab.eventFrames('conv-1').filter((frame) => frame.event.type === 'reply.start');
    expect(
      starts.map((frame) => [frame.event.type === 'reply.start' && frame.event.replyId, frame.unprompted]),
    ).toEqual([
      ['r-1', undefined],
      ['r-2', true],
    ]);
  });

  it('replays exactly the missed events after a disconnect mid-reply, and an ended reply as its end', async () => {
    harness = await startHarness();
    const first = await greeted('browser-1');
    await sendMessage(first, 'm-1', 'conv-1');
    const intent = harness.intents[0]!;
    const events = replyEvents('r-1', ['a', 'b', 'c', 'd', 'e', 'f']);
    await harness.deliver(intent, events.slice(0, 3));
    await first.next(
      (frame) => frame.type === 'event' && frame.event.type === 'reply.delta' && frame.event.text === 'b',
    );
    const seen = first.eventFrames('conv-1');
    const lastSeq = seen.at(-1)!.seq;
    await first.close();
    // Delivered while nobody is connected: only logged for replay. The reply is still streaming.
    await harness.deliver(intent, events.slice(3, -1));

    const second = await greeted('browser-1', { resume: { conversationId: 'conv-1', lastSeq } });
    const resumed = await second.next((frame) => frame.type === 'resumed');
    const replayed = second.eventFrames('conv-1');
    expect(replayed.map((frame) => frame.event)).toEqual(events.slice(3, -1));
    expect(replayed.every((frame) => frame.seq > lastSeq)).toBe(true);
    expect(resumed).toEqual({
      type: 'resumed',
      conversationId: 'conv-1',
      replayed: events.length - 4,
      complete: true,
      lastSeq: replayed.at(-1)!.seq,
    });
    // The rest of the reply arrives live, once.
    const tail: ReplyEvent = { type: 'status', text: 'done' };
    await harness.deliver(intent, [events.at(-1)!, tail]);
    await second.next((frame) => frame.type === 'event' && frame.event.type === 'status');
    const all = second.eventFrames('conv-1').map((frame) => frame.seq);
    expect(new Set(all).size).toBe(all.length);
    await second.close();

    // Once the reply has ended, the log keeps its end (the whole text) in place of its deltas: a
    // client that saw only the first ones is repaired by it.
    const third = await greeted('browser-1', { resume: { conversationId: 'conv-1', lastSeq } });
    const afterEnd = await third.next((frame) => frame.type === 'resumed');
    expect(third.eventFrames('conv-1').map((frame) => frame.event)).toEqual([events.at(-1), tail]);
    expect(afterEnd).toMatchObject({ replayed: 2, complete: true });
  });

  it('resumes via a resume frame and reports complete:false when the log no longer reaches back', async () => {
    harness = await startHarness({ replayLimit: 3 });
    const client = await greeted('browser-1');
    await sendMessage(client, 'm-1', 'conv-1');
    await harness.deliver(harness.intents[0]!, replyEvents('r-1', ['1', '2', '3', '4', '5']));
    await client.next((frame) => frame.type === 'event' && frame.event.type === 'reply.end');
    const seqs = client.eventFrames('conv-1').map((frame) => frame.seq);

    // The log kept the last three events while the deltas streamed (the start and the first two
    // deltas went), then the end replaced the deltas: it holds the end alone.
    client.send({ type: 'resume', conversationId: 'conv-1', lastSeq: seqs[0]! });
    const partial = await client.next<Extract<ServerFrame, { type: 'resumed' }>>(
      (frame) => frame.type === 'resumed',
    );
    expect(partial).toMatchObject({ replayed: 1, complete: false, lastSeq: seqs.at(-1) });

    client.send({ type: 'resume', conversationId: 'conv-1', lastSeq: seqs.at(-3)! });
    expect(await client.next((frame) => frame.type === 'resumed')).toMatchObject({
      replayed: 1,
      complete: true,
    });

    client.send({ type: 'resume', conversationId: 'conv-1', lastSeq: seqs.at(-1)! });
    expect(await client.next((frame) => frame.type === 'resumed')).toMatchObject({
      replayed: 0,
      complete: true,
    });
  });

  it('keeps a conversation to the client that started it', async () => {
    harness = await startHarness();
    const owner = await greeted('browser-1');
    await sendMessage(owner, 'm-1', 'conv-1');
    await harness.deliver(harness.intents[0]!, replyEvents('r-1', ['secret']));

    const intruder = await greeted('browser-2', { resume: { conversationId: 'conv-1', lastSeq: 0 } });
    expect(await intruder.next((frame) => frame.type === 'error')).toMatchObject({
      code: 'unauthorized',
      retryable: false,
    });
    intruder.send({ type: 'resume', conversationId: 'conv-1', lastSeq: 0 });
    expect(await intruder.next((frame) => frame.type === 'error')).toMatchObject({ code: 'unauthorized' });
    expect(await sendMessage(intruder, 'm-x', 'conv-1')).toMatchObject({
      type: 'error',
      code: 'unauthorized',
    });
    expect(intruder.eventFrames()).toHaveLength(0);
    expect(harness.intents).toHaveLength(1);
    expect(intruder.socket.readyState).toBe(intruder.socket.OPEN);
  });

  it('stopIntake() refuses new messages as retryable while replies still reach the open connection', async () => {
    harness = await startHarness();
    const client = await greeted('browser-1');
    expect(await sendMessage(client, 'm-1', 'c')).toMatchObject({ type: 'accepted' });
    const accepted = harness.intents[0]!;
    await harness.channel.stopIntake();
    expect(harness.channel.health()).toEqual({ status: 'down', detail: 'stopping' });
    expect(await sendMessage(client, 'm-2', 'c')).toEqual({
      type: 'error',
      code: 'shutting_down',
      message: 'the server is shutting down; retry shortly',
      retryable: true,
      clientMessageId: 'm-2',
    });
    expect(harness.intents).toHaveLength(1);
    await harness.deliver(accepted, replyEvents('r1', ['still ', 'here']));
    const end = await client.next((frame) => frame.type === 'event' && frame.event.type === 'reply.end');
    expect(end).toMatchObject({ conversationId: 'c', event: { text: 'still here' } });
    expect(client.frames.some((frame) => frame.type === 'shutdown')).toBe(false);
  });

  it('lets the retryable flag of a refusal win over the default for its code', async () => {
    harness = await startHarness();
    const client = await greeted('browser-1');
    harness.setSink(async () => ({
      status: 'rejected',
      code: 'invalid_intent',
      message: 'x',
      retryable: true,
    }));
    expect(await sendMessage(client, 'm-1', 'c')).toMatchObject({ code: 'invalid_intent', retryable: true });
  });

  it('stop() sends shutdown, closes with 1001 and reports health', async () => {
    harness = await startHarness();
    const client = await greeted('browser-1');
    expect(harness.channel.health().status).toBe('up');
    await harness.channel.stop();
    expect(client.frames.at(-1)).toEqual({ type: 'shutdown', retryAfterMs: 1000 });
    expect((await client.closed).code).toBe(1001);
    expect(harness.channel.health().status).toBe('stopped');
    expect(harness.channel.connectionCount()).toBe(0);
  });
});

describe('Stop', () => {
  it('passes a cancel of its own conversation to core and answers cancelled', async () => {
    harness = await startHarness();
    harness.setCancel((request) => (request.replyId === 'r-running' ? 'stopping' : 'not_running'));
    const client = await greeted('browser-1');
    await sendMessage(client, 'm-1', 'conv-1');
    client.send({ type: 'cancel', conversationId: 'conv-1', replyId: 'r-running', shownChars: 12 });
    expect(await client.next((frame) => frame.type === 'cancelled')).toEqual({
      type: 'cancelled',
      conversationId: 'conv-1',
      replyId: 'r-running',
      stopping: true,
    });
    client.send({ type: 'cancel', conversationId: 'conv-1', replyId: 'r-finished' });
    expect(
      await client.next((frame) => frame.type === 'cancelled' && frame.replyId === 'r-finished'),
    ).toMatchObject({ stopping: false });
    // Before its first words a reply is named by the message it answers.
    client.send({ type: 'cancel', conversationId: 'conv-1', targetClientMessageId: 'm-1', shownChars: 0 });
    expect(
      await client.next((frame) => frame.type === 'cancelled' && frame.targetClientMessageId === 'm-1'),
    ).toMatchObject({ stopping: false });
    client.send({ type: 'cancel', conversationId: 'conv-1' });
    expect(await client.next((frame) => frame.type === 'error')).toMatchObject({ code: 'bad_frame' });
    expect(harness.cancels).toEqual([
      { channel: 'web', conversationId: 'conv-1', replyId: 'r-running', shownChars: 12 },
      { channel: 'web', conversationId: 'conv-1', replyId: 'r-finished' },
      { channel: 'web', conversationId: 'conv-1', intentId: 'web:browser-1:m-1', shownChars: 0 },
    ]);
  });

  it("refuses to stop another client's reply, and keeps the connection", async () => {
    harness = await startHarness();
    harness.setCancel(() => 'stopping');
    const owner = await greeted('browser-1');
    await sendMessage(owner, 'm-1', 'conv-1');
    const stranger = await greeted('browser-2');
    stranger.send({ type: 'cancel', conversationId: 'conv-1', replyId: 'r-1' });
    expect(await stranger.next((frame) => frame.type === 'error')).toMatchObject({ code: 'unauthorized' });
    expect(harness.cancels).toEqual([]);
    stranger.send({ type: 'cancel', conversationId: 'conv-1', replyId: 'r-1', shownChars: -1 });
    expect(await stranger.next((frame) => frame.type === 'error')).toMatchObject({ code: 'bad_frame' });
    stranger.send({ type: 'ping', t: 1 });
    expect(await stranger.next((frame) => frame.type === 'pong')).toMatchObject({ t: 1 });
  });
});
