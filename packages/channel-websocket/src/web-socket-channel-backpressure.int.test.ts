import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { ReplyEvent } from '@nexus/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness, TestClient } from './testing/channel-test-harness.ts';

let harness: Harness | undefined;
const clients: TestClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await harness?.close();
  harness = undefined;
});

function heapUsedAfterGc(): number {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  gc();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}

const DELTA_CHARS = 8 * 1024;

/** A long reply streamed like a model would: distinct delta strings, the event loop free between them. */
async function* longReply(replyId: string, deltas: number, withEnd: boolean): AsyncIterable<ReplyEvent> {
  yield { type: 'reply.start', replyId };
  for (let index = 0; index < deltas; index += 1) {
    yield { type: 'reply.delta', replyId, text: `${index};`.padEnd(DELTA_CHARS, 'x') };
    if (index % 32 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  if (withEnd) yield { type: 'reply.end', replyId, text: 'done' };
}

async function stalledClient(conversationId: string): Promise<TestClient> {
  const client = await TestClient.greeted(harness!.url, 'slow-reader');
  clients.push(client);
  client.send({ type: 'message', clientMessageId: 'm-1', conversationId, text: 'write me a novel' });
  await client.next((frame) => frame.type === 'accepted');
  client.socket.pause();
  return client;
}

describe('slow consumers', () => {
  it('merges deltas for a peer that stopped reading, losing no text and keeping seq increasing', async () => {
    harness = await startHarness({ maxBufferedBytes: 512 * 1024 * 1024, replayMaxBytes: 4 * 1024 * 1024 });
    const client = await stalledClient('novel');
    const deltas = 2500;
    await harness.deliver(harness.intents[0]!, longReply('r-1', deltas, true));
    client.socket.resume();
    await client.next((frame) => frame.type === 'event' && frame.event.type === 'reply.end', 20_000);

    const frames = client.eventFrames('novel');
    const deltaFrames = frames.filter((frame) => frame.event.type === 'reply.delta');
    const text = deltaFrames
      .map((frame) => (frame.event.type === 'reply.delta' ? frame.event.text : ''))
      .join('');
    const expected = Array.from({ length: deltas }, (_, index) => `${index};`.padEnd(DELTA_CHARS, 'x')).join(
      '',
    );
    expect(text === expected).toBe(true);
    expect(deltaFrames.length).toBeLessThan(deltas);
    const seqs = frames.map((frame) => frame.seq);
    expect(seqs.every((seq, index) => index === 0 || seq > seqs[index - 1]!)).toBe(true);
    expect(frames.at(-1)!.event).toEqual({ type: 'reply.end', replyId: 'r-1', text: 'done' });
  });

  it('closes with 4413 a peer that falls too far behind, keeps memory bounded, and lets it resume', async () => {
    harness = await startHarness({
      coalesceAboveBytes: 1024 * 1024,
      maxBufferedBytes: 4 * 1024 * 1024,
      replayMaxBytes: 2 * 1024 * 1024,
    });
    const client = await stalledClient('epic');
    const before = heapUsedAfterGc();
    const deltas = 8192; // 64 MiB of text, far more than the cap and the kernel's buffers
    await harness.deliver(harness.intents[0]!, longReply('r-1', deltas, false));
    const growth = heapUsedAfterGc() - before;
    expect(growth).toBeLessThan(32 * 1024 * 1024);

    client.socket.resume();
    expect((await client.closed).code).toBe(4413);
    const lastSeq = client.eventFrames('epic').at(-1)?.seq ?? 0;

    const again = await TestClient.greeted(harness.url, 'slow-reader', {
      resume: { conversationId: 'epic', lastSeq },
    });
    clients.push(again);
    const resumed = await again.next((frame) => frame.type === 'resumed', 20_000);
    expect(resumed).toMatchObject({ type: 'resumed', conversationId: 'epic', complete: false });
    const replayed = again.eventFrames('epic');
    expect(replayed.length).toBeGreaterThan(0);
    expect(replayed.every((frame) => frame.seq > lastSeq)).toBe(true);
    expect(replayed.at(-1)!.event).toMatchObject({
      type: 'reply.delta',
      text: `${deltas - 1};`.padEnd(DELTA_CHARS, 'x'),
    });
  });
});
