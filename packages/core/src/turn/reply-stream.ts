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

  function notify(): void {
    const resolve = wake;
    wake = undefined;
    resolve?.();
  }

  return {
    push(event) {
      if (ended || consumerGone) return;
      buffer.push(event);
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
            return { value, done: false };
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
