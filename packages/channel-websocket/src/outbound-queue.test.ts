import type { ReplyEvent } from '@nexus/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { OutboundQueue } from './outbound-queue.ts';

const queues: OutboundQueue[] = [];
// Corked connections are counted per process: none may stay corked into the next test.
afterEach(() => {
  for (const queue of queues.splice(0)) queue.dispose();
});

/** A socket and its connection that write into one log, so the order of sends and (un)corks shows. */
function recordingQueue() {
  const log: string[] = [];
  const socket = {
    readyState: WebSocket.OPEN,
    bufferedAmount: 0,
    send: (frame: string) => log.push(`send ${(JSON.parse(frame) as { event: ReplyEvent }).event.type}`),
  } as unknown as WebSocket;
  const transport = { cork: () => log.push('cork'), uncork: () => log.push('uncork') };
  const queue = new OutboundQueue({
    socket,
    transport,
    coalesceAboveBytes: 1024,
    maxBufferedBytes: 1024 * 1024,
    onOverflow: () => log.push('overflow'),
  });
  queues.push(queue);
  let seq = 0;
  const send = (event: ReplyEvent, conversationId = 'c-1') => {
    seq += 1;
    queue.sendEvent(
      conversationId,
      seq,
      event,
      JSON.stringify({ type: 'event', conversationId, seq, event }),
    );
  };
  return { log, send, queue };
}

describe('OutboundQueue corking', () => {
  it('holds the frames of one event-loop turn until the next, then writes them together', async () => {
    const { log, send } = recordingQueue();
    send({ type: 'reply.start', replyId: 'r-1' });
    send({ type: 'reply.delta', replyId: 'r-1', text: 'Hel' });
    send({ type: 'reply.delta', replyId: 'r-1', text: 'lo' });
    expect(log).toEqual(['cork', 'send reply.start', 'send reply.delta', 'send reply.delta']);
    await new Promise((resolve) => setImmediate(resolve));
    expect(log.at(-1)).toBe('uncork');
  });

  it("writes a reply's last frame at once, with the frames corked before it, in order", () => {
    const { log, send } = recordingQueue();
    send({ type: 'reply.start', replyId: 'r-1' });
    send({ type: 'reply.delta', replyId: 'r-1', text: 'Hello' });
    send({ type: 'reply.end', replyId: 'r-1', text: 'Hello' });
    expect(log).toEqual(['cork', 'send reply.start', 'send reply.delta', 'send reply.end', 'uncork']);
    // What is sent after it in the same turn is corked again, and still follows it.
    send({ type: 'typing' });
    expect(log.slice(5)).toEqual(['cork', 'send typing']);
  });

  it('writes an error that ends a reply at once', () => {
    const { log, send } = recordingQueue();
    send({ type: 'reply.start', replyId: 'r-1' });
    send({ type: 'error', code: 'model_unavailable', message: 'the model is down', retryable: true });
    expect(log).toEqual(['cork', 'send reply.start', 'send error', 'uncork']);
  });

  it('keeps batching while another reply streams on the connection', async () => {
    const { log, send } = recordingQueue();
    send({ type: 'reply.start', replyId: 'r-1' }, 'c-1');
    send({ type: 'reply.start', replyId: 'r-2' }, 'c-2');
    send({ type: 'reply.end', replyId: 'r-1', text: 'one' }, 'c-1');
    expect(log).toEqual(['cork', 'send reply.start', 'send reply.start', 'send reply.end']);
    await new Promise((resolve) => setImmediate(resolve));
    expect(log.at(-1)).toBe('uncork');
    send({ type: 'reply.delta', replyId: 'r-2', text: 'two' }, 'c-2');
    send({ type: 'reply.end', replyId: 'r-2', text: 'two' }, 'c-2');
    expect(log.slice(5)).toEqual(['cork', 'send reply.delta', 'send reply.end', 'uncork']);
  });

  it('keeps batching while another connection holds frames in this event-loop turn', async () => {
    const other = recordingQueue();
    const { log, send } = recordingQueue();
    other.send({ type: 'typing' }, 'c-9');
    send({ type: 'reply.start', replyId: 'r-1' });
    send({ type: 'reply.end', replyId: 'r-1', text: 'one' });
    expect(log).toEqual(['cork', 'send reply.start', 'send reply.end']);
    await new Promise((resolve) => setImmediate(resolve));
    expect(log.at(-1)).toBe('uncork');
  });
});
