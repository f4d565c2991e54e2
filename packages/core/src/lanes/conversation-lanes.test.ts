import { describe, expect, it } from 'vitest';
import { createIntentDeduplicator } from '../intake/intent-deduplicator.ts';
import { createReplyStream } from '../turn/reply-stream.ts';
import { createConversationLanes } from './conversation-lanes.ts';

function gate() {
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

describe('conversation lanes', () => {
  it('runs one lane in order, lanes side by side under the limit, and removes idle lanes', async () => {
    const lanes = createConversationLanes({ maxConcurrent: 2, maxQueuedPerLane: 10 });
    const log: string[] = [];
    const gates = { a1: gate(), b1: gate(), c1: gate() };
    const task = (name: string, wait?: Promise<void>) => async () => {
      log.push(`start ${name}`);
      await wait;
      log.push(`end ${name}`);
      return undefined;
    };
    lanes.enqueue('a', task('a1', gates.a1.opened));
    lanes.enqueue('a', task('a2'));
    lanes.enqueue('b', task('b1', gates.b1.opened));
    lanes.enqueue('c', task('c1', gates.c1.opened));
    await Promise.resolve();
    expect(log).toEqual(['start a1', 'start b1']);
    // a2 waits behind a1 in its own lane; only c1 waits for a slot.
    expect({
      active: lanes.activeCount,
      queued: lanes.queuedCount,
      waitingForSlot: lanes.waitingForSlotCount,
      lanes: lanes.laneCount,
    }).toEqual({ active: 2, queued: 2, waitingForSlot: 1, lanes: 3 });
    gates.a1.open();
    await new Promise((resolve) => setTimeout(resolve, 0));
    // c1 asked for a slot before a2, so it goes first; a2 still waits behind a1 in its own lane.
    expect(log.slice(2)).toEqual(['end a1', 'start c1']);
    // a2 now asks for the slot b1 holds.
    expect(lanes.waitingForSlotCount).toBe(1);
    gates.b1.open();
    gates.c1.open();
    await lanes.whenIdle();
    expect(log.indexOf('start a2')).toBeGreaterThan(log.indexOf('end a1'));
    expect(lanes.laneCount).toBe(0);
  });

  it('refuses work beyond the per-lane queue limit and survives a throwing task', async () => {
    const lanes = createConversationLanes({ maxConcurrent: 1, maxQueuedPerLane: 2 });
    const held = gate();
    let ran = 0;
    expect(lanes.enqueue('a', () => held.opened.then(() => undefined))).toBe(true);
    await Promise.resolve();
    expect(
      lanes.enqueue('a', async () => {
        throw new Error('task failed');
      }),
    ).toBe(true);
    expect(lanes.enqueue('a', async () => ({ drain: Promise.resolve().then(() => void ran++) }))).toBe(true);
    expect(lanes.enqueue('a', async () => undefined)).toBe(false);
    held.open();
    await lanes.whenIdle();
    expect(ran).toBe(1);
  });

  it('keeps the next task of a lane waiting for the drain, but frees the slot for other lanes', async () => {
    const lanes = createConversationLanes({ maxConcurrent: 1, maxQueuedPerLane: 10 });
    const delivery = gate();
    const log: string[] = [];
    lanes.enqueue('slow', async () => ({
      drain: delivery.opened.then(() => void log.push('slow delivered')),
    }));
    lanes.enqueue('slow', async () => void log.push('slow second'));
    lanes.enqueue('fast', async () => void log.push('fast'));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(log).toEqual(['fast']);
    delivery.open();
    await lanes.whenIdle();
    expect(log).toEqual(['fast', 'slow delivered', 'slow second']);
  });
});

describe('intent deduplicator', () => {
  it('catches a repeat until it expires or is released, and stays within its size', () => {
    let now = 0;
    const deduplicator = createIntentDeduplicator({ ttlMs: 100, maxEntries: 3, now: () => now });
    expect(deduplicator.claim('a')).toBe(true);
    expect(deduplicator.claim('a')).toBe(false);
    deduplicator.release('a');
    expect(deduplicator.claim('a')).toBe(true);
    now = 150;
    expect(deduplicator.claim('a')).toBe(true);
    for (const key of ['b', 'c', 'd', 'e']) deduplicator.claim(key);
    expect(deduplicator.size).toBe(3);
    expect(deduplicator.claim('e')).toBe(false);
  });
});

describe('reply stream', () => {
  it('hands pushed events to a reader that started before or after them, then ends', async () => {
    const stream = createReplyStream();
    stream.push({ type: 'typing' });
    const read = (async () => {
      const types: string[] = [];
      for await (const event of stream) types.push(event.type);
      return types;
    })();
    await new Promise((resolve) => setTimeout(resolve, 0));
    stream.push({ type: 'reply.start', replyId: 'r' });
    stream.push({ type: 'reply.end', replyId: 'r', text: '' });
    stream.end();
    stream.push({ type: 'typing' });
    expect(await read).toEqual(['typing', 'reply.start', 'reply.end']);
  });

  it('drops events after the reader stopped early', async () => {
    const stream = createReplyStream();
    stream.push({ type: 'typing' });
    for await (const _event of stream) break;
    stream.push({ type: 'status', text: 'ignored' });
    const iterator = stream[Symbol.asyncIterator]();
    expect(await iterator.next()).toEqual({ value: undefined, done: true });
  });
});
