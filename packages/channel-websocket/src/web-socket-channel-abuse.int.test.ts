import { randomBytes } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { ServerFrame } from '@nexus/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import {
  delay,
  type Harness,
  replyEvents,
  startHarness,
  TestClient,
} from './testing/channel-test-harness.ts';

type ErrorFrame = Extract<ServerFrame, { type: 'error' }>;

let harness: Harness | undefined;
const clients: TestClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await harness?.close();
  harness = undefined;
});

async function greeted(clientId: string): Promise<TestClient> {
  const client = await TestClient.greeted(harness!.url, clientId);
  clients.push(client);
  return client;
}

function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  gc();
}

/** 1,000 hostile frames of every kind we could think of, none of them valid. */
function malformedFrames(): Array<{ data: Buffer | string; binary: boolean }> {
  const makers: Array<(index: number) => { data: Buffer | string; binary: boolean }> = [
    () => ({ data: randomBytes(1 + Math.floor(Math.random() * 2000)), binary: false }),
    () => ({ data: randomBytes(64), binary: true }),
    () => ({ data: Buffer.from([0x7b, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d]), binary: false }),
    (index) => ({ data: JSON.stringify({ type: `nope-${index}` }), binary: false }),
    () => ({
      data: JSON.stringify({ type: 'message', clientMessageId: [], conversationId: {}, text: null }),
      binary: false,
    }),
    () => ({
      data: JSON.stringify({ type: 'resume', conversationId: '../../etc', lastSeq: -1 }),
      binary: false,
    }),
    () => ({ data: '{"type":"message","__proto__":{"polluted":true},"text":"x"}', binary: false }),
    () => ({ data: `${'['.repeat(20_000)}${']'.repeat(20_000)}`, binary: false }),
    () => ({ data: JSON.stringify({ type: 'hello' }), binary: false }),
    () => ({ data: 'null', binary: false }),
  ];
  return Array.from({ length: 1000 }, (_, index) => makers[index % makers.length]!(index));
}

describe('hostile input', () => {
  it('answers 1,000 malformed frames and 2 MiB payloads without hurting a well-behaved client', async () => {
    harness = await startHarness({ maxFramesPerSecond: 100_000, messagesPerMinute: 1000 });
    const good = await greeted('good-client');
    const abuser = await greeted('abuser');
    collectGarbage();
    const heapBefore = process.memoryUsage().heapUsed;

    let served = 0;
    let abuseDone = false;
    const wellBehaved = (async () => {
      for (let turn = 0; !abuseDone || turn < 10; turn += 1) {
        const conversationId = `conv-${turn}`;
        good.send({ type: 'message', clientMessageId: `m-${turn}`, conversationId, text: `turn ${turn}` });
        await good.next((frame) => frame.type === 'accepted' && frame.clientMessageId === `m-${turn}`);
        const intent = harness!.intents.find((candidate) => candidate.id === `web:good-client:m-${turn}`)!;
        await harness!.deliver(intent, replyEvents(`r-${turn}`, ['ok ', `${turn}`]));
        const end = await good.next(
          (frame) =>
            frame.type === 'event' &&
            frame.conversationId === conversationId &&
            frame.event.type === 'reply.end',
        );
        expect(end).toMatchObject({ event: { text: `ok ${turn}` } });
        served += 1;
      }
    })().catch((error: unknown) => error);

    const frames = malformedFrames();
    for (const frame of frames) abuser.socket.send(frame.data, { binary: frame.binary });
    const oversized = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const client = await TestClient.open(harness!.url);
        clients.push(client);
        client.send({ type: 'hello', clientId: 'big' });
        client.send(`{"type":"message","text":"${'x'.repeat(2 * 1024 * 1024)}"}`);
        return client.closed;
      }),
    );
    await expect
      .poll(() => abuser.frames.filter((frame) => frame.type === 'error').length, { timeout: 15_000 })
      .toBe(frames.length);
    abuseDone = true;
    expect(await wellBehaved).toBeUndefined();

    expect(oversized.map((closed) => closed.code)).toEqual([1009, 1009, 1009, 1009]);
    const errors = abuser.frames.filter((frame): frame is ErrorFrame => frame.type === 'error');
    const codes = new Set(errors.map((frame) => frame.code));
    expect(codes).toEqual(new Set(['bad_frame', 'unknown_frame']));
    expect(abuser.socket.readyState).toBe(abuser.socket.OPEN);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(served).toBeGreaterThanOrEqual(10);
    expect(harness.intents.every((intent) => intent.sender.platformId === 'good-client')).toBe(true);
    await expect.poll(() => harness!.channel.connectionCount()).toBe(2);

    collectGarbage();
    const growth = process.memoryUsage().heapUsed - heapBefore;
    expect(growth).toBeLessThan(48 * 1024 * 1024);
  });

  it('refuses messages over the rate with a retryable error, then accepts them again', async () => {
    let clock = 1_000_000;
    harness = await startHarness({ messagesPerMinute: 3, now: () => clock });
    const client = await greeted('browser-1');
    const answers: ServerFrame[] = [];
    for (let index = 0; index < 5; index += 1) {
      client.send({ type: 'message', clientMessageId: `m-${index}`, conversationId: 'c', text: 'hi' });
      answers.push(await client.next((frame) => frame.type === 'accepted' || frame.type === 'error'));
    }
    expect(answers.map((frame) => frame.type)).toEqual([
      'accepted',
      'accepted',
      'accepted',
      'error',
      'error',
    ]);
    expect(answers[3]).toMatchObject({ code: 'rate_limited', retryable: true, clientMessageId: 'm-3' });
    clock += 20_000; // one message's worth of refill at 3 per minute
    client.send({ type: 'message', clientMessageId: 'm-3', conversationId: 'c', text: 'hi' });
    expect(await client.next((frame) => frame.type === 'accepted' || frame.type === 'error')).toMatchObject({
      type: 'accepted',
      clientMessageId: 'm-3',
    });
    expect(harness.intents).toHaveLength(4);
  });

  it('closes with 4429 a client that keeps sending far over the message rate', async () => {
    harness = await startHarness({ messagesPerMinute: 1, now: () => 5_000 });
    const client = await greeted('browser-1');
    for (let index = 0; index < 20; index += 1) {
      client.send({ type: 'message', clientMessageId: `m-${index}`, conversationId: 'c', text: 'hi' });
    }
    expect((await client.closed).code).toBe(4429);
    const refusals = client.frames.filter((frame) => frame.type === 'error' && frame.code === 'rate_limited');
    expect(refusals).toHaveLength(9);
    expect(harness.intents).toHaveLength(1);
  });

  it('drops frames beyond maxFramesPerSecond and closes with 4429 on repeated floods', async () => {
    let clock = 0;
    harness = await startHarness({ maxFramesPerSecond: 10, now: () => clock });
    const client = await greeted('browser-1');
    const pongs = () => client.frames.filter((frame) => frame.type === 'pong').length;
    // The hello counted as one frame of this second.
    for (let index = 0; index < 15; index += 1) client.send({ type: 'ping', t: index });
    await expect.poll(pongs).toBe(9);
    await delay(100);
    expect(pongs()).toBe(9);

    clock += 1000;
    client.send({ type: 'ping', t: 99 });
    expect(await client.next((frame) => frame.type === 'pong' && frame.t === 99)).toBeDefined();
    for (let index = 0; index < 15; index += 1) client.send({ type: 'ping' });
    await expect.poll(pongs).toBe(19);
    await delay(100);
    expect(client.socket.readyState).toBe(client.socket.OPEN);

    clock += 1000;
    for (let index = 0; index < 15; index += 1) client.send({ type: 'ping' });
    expect((await client.closed).code).toBe(4429);
  });

  it('closes at once a single flood ten times over the frame limit', async () => {
    harness = await startHarness({ maxFramesPerSecond: 5, now: () => 0 });
    const client = await greeted('browser-1');
    for (let index = 0; index < 200; index += 1) client.send('garbage');
    expect((await client.closed).code).toBe(4429);
    expect(client.frames.filter((frame) => frame.type === 'error').length).toBeLessThanOrEqual(5);
  });
});

describe('heartbeat', () => {
  it('terminates a peer that stops answering pings and keeps one that answers', async () => {
    // Not smaller: both ends share this event loop, and a stall longer than one interval would
    // make even the answering peer look dead.
    harness = await startHarness({ heartbeatMs: 200 });
    const silent = await TestClient.open(harness.url, { clientOptions: { autoPong: false } });
    clients.push(silent);
    silent.send({ type: 'hello', clientId: 'silent' });
    const alive = await greeted('alive');
    let pings = 0;
    alive.socket.on('ping', () => {
      pings += 1;
    });
    expect((await silent.closed).code).toBe(1006);
    await expect.poll(() => pings, { timeout: 5000 }).toBeGreaterThanOrEqual(4);
    expect(alive.socket.readyState).toBe(alive.socket.OPEN);
    expect(harness.channel.connectionCount()).toBe(1);
  });
});
