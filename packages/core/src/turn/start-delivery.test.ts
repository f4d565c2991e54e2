import type { ChannelAdapter } from '@nexus/protocol';
import { intentSchema } from '@nexus/protocol';
import { describe, expect, it } from 'vitest';
import { createRecordingChannel, createRecordingLogger, testIntent } from '../testing/recording-channel.ts';
import { startDelivery } from './start-delivery.ts';

const intent = intentSchema.parse(testIntent({ id: 'edit-2' }));

function options(adapter: ChannelAdapter, hardStop = new AbortController()) {
  const logger = createRecordingLogger();
  return {
    logger,
    hardStop,
    delivery: startDelivery({
      intent,
      revision: undefined,
      adapter,
      hardStopSignal: hardStop.signal,
      logger,
    }),
  };
}

describe('startDelivery', () => {
  it('hands the channel the reply while it is pushed, then runs the store step once it is delivered', async () => {
    const channel = createRecordingChannel();
    const { delivery } = options(channel.adapter);
    delivery.events.push({ type: 'typing' });
    delivery.events.push({ type: 'reply.end', replyId: 'r', text: 'hi' });
    delivery.events.end();
    let stores = 0;
    let deliveredWhenStored: boolean | undefined;
    await delivery.drain(async () => {
      stores += 1;
      deliveredWhenStored = channel.deliveries[0]?.done;
    }, 5000);
    expect(channel.deliveries[0]?.events.map((event) => event.type)).toEqual(['typing', 'reply.end']);
    expect(channel.deliveries[0]?.conversation).toMatchObject({ intentId: 'edit-2', channel: 'test' });
    expect(delivery.deliveredFully()).toBe(true);
    expect(deliveredWhenStored).toBe(true);
    // Called from the delivery's continuation and again by the drain: the caller makes it idempotent.
    expect(stores).toBeGreaterThanOrEqual(1);
  });

  it('threads the answer to an edit under the edited message, with the edit’s own id beside it', async () => {
    const channel = createRecordingChannel();
    const logger = createRecordingLogger();
    const delivery = startDelivery({
      intent,
      revision: { targetIntentId: 'm1', mode: 'rerun' },
      adapter: channel.adapter,
      hardStopSignal: new AbortController().signal,
      logger,
    });
    delivery.events.end();
    await delivery.drain(async () => {}, 5000);
    expect(channel.deliveries[0]?.conversation).toMatchObject({ intentId: 'm1', revisionIntentId: 'edit-2' });
  });

  it('gives up on a channel that is still delivering after the timeout, and stores anyway', async () => {
    const stuck = createRecordingChannel({ beforeDeliver: () => new Promise(() => {}) });
    const { delivery, logger } = options(stuck.adapter);
    delivery.events.end();
    let stored = false;
    await delivery.drain(async () => {
      stored = true;
    }, 50);
    expect(stored).toBe(true);
    expect(delivery.deliveredFully()).toBe(false);
    expect(logger.lines.map((line) => line.message)).toContain(
      'channel still delivering after the timeout; moving on',
    );
  });

  it('logs a channel that fails to deliver and still runs the store step', async () => {
    const failing = createRecordingChannel({
      beforeDeliver: () => Promise.reject(new Error('platform down')),
    });
    const { delivery, logger } = options(failing.adapter);
    delivery.events.end();
    let stored = false;
    await delivery.drain(async () => {
      stored = true;
    }, 5000);
    expect(stored).toBe(true);
    expect(delivery.deliveredFully()).toBe(false);
    expect(logger.lines.find((line) => line.level === 'error')?.message).toBe(
      'channel failed to deliver the reply',
    );
  });

  it('abandons a running delivery at the hard stop', async () => {
    let seenSignal: AbortSignal | undefined;
    const channel = createRecordingChannel();
    const adapter: ChannelAdapter = {
      ...channel.adapter,
      deliver: ({ abortSignal }) => {
        seenSignal = abortSignal;
        return new Promise((resolve) => abortSignal?.addEventListener('abort', () => resolve()));
      },
    };
    const { delivery, hardStop } = options(adapter);
    const drained = delivery.drain(async () => {}, 60_000);
    await new Promise((resolve) => setTimeout(resolve, 10));
    hardStop.abort(new Error('hard stop'));
    await drained;
    expect(seenSignal?.aborted).toBe(true);
    expect(delivery.deliveredFully()).toBe(false);
  });
});
