import type { Duplex } from 'node:stream';
import type { ReplyEvent } from '@nexus/protocol';
import { WebSocket } from 'ws';

export interface OutboundQueueOptions {
  socket: WebSocket;
  /**
   * The connection under `socket`. Corked at the first frame of an event-loop turn and uncorked
   * on the next, so the frames of one turn (a burst of deltas, the end) leave in one `writev`
   * instead of one system call each; the frames themselves are unchanged. A reply's last frame
   * is written at once when nothing else is being written in that turn (see `sendEvent`).
   */
  transport?: Pick<Duplex, 'cork' | 'uncork'>;
  /** Above this many buffered bytes, deltas are merged per reply instead of sent one by one. */
  coalesceAboveBytes: number;
  /** Above this many buffered + held bytes the peer is too slow: `onOverflow` runs. */
  maxBufferedBytes: number;
  onOverflow: () => void;
}

interface HeldDelta {
  replyId: string;
  seq: number;
  parts: string[];
  chars: number;
}

const FLUSH_CHECK_MS = 20;

/** Connections of this process holding frames for the end of the event-loop turn. */
let corkedQueues = 0;

/**
 * Everything a connection sends goes through here. A peer that reads slower than the model
 * writes would otherwise grow the socket buffer without bound: past a threshold, consecutive
 * `reply.delta` events of one reply are held and merged into one frame (it carries the seq of
 * the last merged event, so resume still works); past a hard cap the peer is dropped and can
 * resume on a fresh socket.
 */
export class OutboundQueue {
  readonly #options: OutboundQueueOptions;
  readonly #held = new Map<string, HeldDelta>();
  #heldChars = 0;
  #flushTimer: NodeJS.Timeout | undefined;
  #overflowed = false;
  #corked: NodeJS.Immediate | undefined;
  /** Conversations with a reply started and not ended on this connection (one reply each at a time). */
  readonly #replying = new Set<string>();

  constructor(options: OutboundQueueOptions) {
    this.#options = options;
  }

  get heldChars(): number {
    return this.#heldChars;
  }

  /** Sends an already serialised frame unless the socket is closed or over the hard cap. */
  send(frame: string): void {
    if (!this.#writable()) return;
    if (
      this.#options.socket.bufferedAmount + this.#heldChars + frame.length >
      this.#options.maxBufferedBytes
    ) {
      this.#overflow();
      return;
    }
    this.#cork();
    this.#options.socket.send(frame);
  }

  #cork(): void {
    const transport = this.#options.transport;
    if (transport === undefined || this.#corked !== undefined) return;
    transport.cork();
    corkedQueues += 1;
    this.#corked = setImmediate(() => this.#uncork());
  }

  #uncork(): void {
    if (this.#corked === undefined) return;
    clearImmediate(this.#corked);
    this.#corked = undefined;
    corkedQueues -= 1;
    this.#options.transport?.uncork();
  }

  /** Sends an `event` frame (serialised once by the caller for all sockets), merging deltas under pressure. */
  sendEvent(conversationId: string, seq: number, event: ReplyEvent, frame: string): void {
    if (!this.#writable()) return;
    const held = this.#held.get(conversationId);
    const congested = this.#options.socket.bufferedAmount > this.#options.coalesceAboveBytes;
    if (event.type === 'reply.delta' && (held !== undefined || congested)) {
      if (held !== undefined && held.replyId !== event.replyId) this.#release(conversationId, held);
      const current = this.#held.get(conversationId);
      if (current === undefined) {
        this.#held.set(conversationId, {
          replyId: event.replyId,
          seq,
          parts: [event.text],
          chars: event.text.length,
        });
      } else {
        current.seq = seq;
        current.parts.push(event.text);
        current.chars += event.text.length;
      }
      this.#heldChars += event.text.length;
      if (this.#options.socket.bufferedAmount + this.#heldChars > this.#options.maxBufferedBytes) {
        this.#overflow();
        return;
      }
      this.#scheduleFlush();
      return;
    }
    // Anything else of this conversation must not overtake the deltas held before it.
    if (held !== undefined) this.#release(conversationId, held);
    this.send(frame);
    if (event.type === 'reply.start') this.#replying.add(conversationId);
    else if (event.type === 'reply.end' || event.type === 'error') {
      this.#replying.delete(conversationId);
      // The reply ended and nothing else is being written in this event-loop turn: its last frame
      // leaves now instead of after the rest of the turn (storing the turn, a job queue's pump,
      // the next message's intake), which the person would wait for. While other replies stream
      // on this connection, or other connections hold frames, all keep sharing one write per
      // connection and turn: ending that batch early cost bench:gateway ~0.1 ms of CPU per turn.
      if (this.#replying.size === 0 && corkedQueues === 1) this.#uncork();
    }
  }

  /** Forgets held data and timers; the socket is closing. */
  dispose(): void {
    this.#uncork();
    this.#held.clear();
    this.#replying.clear();
    this.#heldChars = 0;
    if (this.#flushTimer !== undefined) clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
  }

  #writable(): boolean {
    return !this.#overflowed && this.#options.socket.readyState === WebSocket.OPEN;
  }

  #release(conversationId: string, held: HeldDelta): void {
    this.#held.delete(conversationId);
    this.#heldChars -= held.chars;
    const event: ReplyEvent = { type: 'reply.delta', replyId: held.replyId, text: held.parts.join('') };
    this.send(JSON.stringify({ type: 'event', conversationId, seq: held.seq, event }));
  }

  #scheduleFlush(): void {
    if (this.#flushTimer !== undefined) return;
    this.#flushTimer = setTimeout(() => {
      this.#flushTimer = undefined;
      if (!this.#writable() || this.#held.size === 0) return;
      if (this.#options.socket.bufferedAmount > this.#options.coalesceAboveBytes) {
        this.#scheduleFlush();
        return;
      }
      for (const [conversationId, held] of this.#held) this.#release(conversationId, held);
    }, FLUSH_CHECK_MS);
    this.#flushTimer.unref();
  }

  #overflow(): void {
    if (this.#overflowed) return;
    this.#overflowed = true;
    this.dispose();
    this.#options.onOverflow();
  }
}
