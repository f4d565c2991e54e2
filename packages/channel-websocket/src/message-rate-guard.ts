import { TokenBucket } from '@nexus/channel-kit';
import { WindowCounter } from './window-counter.ts';

export type MessageVerdict = 'accept' | 'reject' | 'close';

export interface MessageRateGuardOptions {
  messagesPerMinute: number;
  now: () => number;
}

/** Rejections per minute, as a multiple of the allowed rate, that mark a client as abusive. */
const ABUSE_FACTOR = 10;
const MINUTE_MS = 60_000;

/**
 * Per-connection limit on `message` frames (each one may start a model run, the expensive part).
 * Over the rate the client gets a retryable refusal; ignoring refusals at scale closes the socket.
 */
export class MessageRateGuard {
  readonly #bucket: TokenBucket;
  readonly #rejections: WindowCounter;
  readonly #abuseThreshold: number;

  constructor(options: MessageRateGuardOptions) {
    const perMinute = Math.max(1, options.messagesPerMinute);
    this.#bucket = new TokenBucket({
      capacity: perMinute,
      refillPerMs: perMinute / MINUTE_MS,
      now: options.now,
    });
    this.#rejections = new WindowCounter({ windowMs: MINUTE_MS, now: options.now });
    this.#abuseThreshold = perMinute * ABUSE_FACTOR;
  }

  check(): MessageVerdict {
    if (this.#bucket.take()) return 'accept';
    const { count } = this.#rejections.increment();
    return count >= this.#abuseThreshold ? 'close' : 'reject';
  }
}
