import type { ReplyEvent } from '@nexus/protocol';

/**
 * A single-consumer async iterable of ReplyEvents that the turn pushes into while the adapter
 * reads, so delivery runs concurrently with generation. Events pushed after the consumer stopped
 * reading are dropped; a reply's events are few enough that buffering them needs no bound.
 */
export interface ReplyStream extends AsyncIterable<ReplyEvent> {
  push(event: ReplyEvent): void;
  end(): void;
}

export function createReplyStream(): ReplyStream {
  const buffer: ReplyEvent[] = [];
  let ended = false;
  let consumerGone = false;
  let wake: (() => void) | undefined;
  let wakeAfterTick: NodeJS.Immediate | undefined;

  function notify(): void {
    if (wakeAfterTick !== undefined) clearImmediate(wakeAfterTick);
    wakeAfterTick = undefined;
    const resolve = wake;
    wake = undefined;
    resolve?.();
  }

  return {
    push(event) {
      if (ended || consumerGone) return;
      buffer.push(event);
      // A delta wakes the consumer once this event-loop turn is over rather than at once: the
      // model's text often arrives as several events in one socket read, and they then reach the
      // consumer as one delta (see `next`). The web-socket send holds its frames until the same
      // point anyway (it corks the socket until setImmediate), so no byte leaves later for it.
      // Anything else wakes it at once, and after the deltas queued before it.
      if (event.type === 'reply.delta' && wake !== undefined) {
        wakeAfterTick ??= setImmediate(notify);
        return;
      }
      notify();
    },
    end() {
      ended = true;
      notify();
    },
    [Symbol.asyncIterator](): AsyncIterator<ReplyEvent> {
      let head = 0;
      return {
        async next() {
          while (head >= buffer.length && !ended && !consumerGone) {
            await new Promise<void>((resolve) => {
              wake = resolve;
            });
          }
          if (head < buffer.length && !consumerGone) {
            const value = buffer[head] as ReplyEvent;
            head += 1;
            if (value.type !== 'reply.delta') return { value, done: false };
            // Deltas of this reply that queued up in the same event-loop turn or while the
            // consumer was busy (a slow socket) go out as one: the same text in the same order,
            // but one frame, one resume-log entry and one send instead of one per word.
            let text = value.text;
            while (head < buffer.length) {
              const following = buffer[head] as ReplyEvent;
              if (following.type !== 'reply.delta' || following.replyId !== value.replyId) break;
              text += following.text;
              head += 1;
            }
            return { value: text === value.text ? value : { ...value, text }, done: false };
          }
          return { value: undefined, done: true };
        },
        async return() {
          consumerGone = true;
          buffer.length = 0;
          return { value: undefined, done: true };
        },
      };
    },
  };
}
