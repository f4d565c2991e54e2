import type { AgentRunPayload, WorkerMessage } from './agent-run-protocol.ts';

interface TurnImage {
  bytes: Uint8Array;
  mediaType: string;
}

export interface RunImageRequests {
  /** Takes the gateway's answer to one request (`media-bytes` or `media-error`). */
  answer(message: Extract<WorkerMessage, { kind: 'media-bytes' | 'media-error' }>): void;
  /**
   * The turn's images, asked of the gateway one at a time (each is in Redis only while it passes
   * through this worker's inbox), until `deadlineAt` at most: a gateway gone with its turn must
   * not hold the run for ever. A job from an older gateway carries them inline.
   */
  fetch(
    payload: AgentRunPayload,
    signal: AbortSignal,
    deadlineAt: number,
    now: () => number,
  ): Promise<TurnImage[]>;
  /** The run ended: whatever still waits is rejected. */
  close(): void;
}

/** A run's requests for the bytes of its turn's images (`media-request`, see agent-run-protocol.ts). */
export function createRunImageRequests(request: (ref: string) => Promise<void>): RunImageRequests {
  const pending = new Map<string, { resolve: (image: TurnImage) => void; reject: (error: Error) => void }>();
  return {
    answer(message) {
      const waiting = pending.get(message.ref);
      pending.delete(message.ref);
      if (message.kind === 'media-error') waiting?.reject(new Error(message.message));
      else waiting?.resolve({ bytes: Buffer.from(message.base64, 'base64'), mediaType: message.mediaType });
    },
    async fetch(payload, runSignal, deadlineAt, now) {
      const signal = AbortSignal.any([runSignal, AbortSignal.timeout(Math.max(0, deadlineAt - now()))]);
      const images: TurnImage[] = [];
      for (const image of payload.userImages ?? []) {
        signal.throwIfAborted();
        if ('base64' in image) {
          images.push({ bytes: Buffer.from(image.base64, 'base64'), mediaType: image.mediaType });
          continue;
        }
        const answered = new Promise<TurnImage>((resolve, reject) => {
          pending.set(image.ref, { resolve, reject });
          signal.addEventListener('abort', () => reject(signal.reason), { once: true });
        });
        await request(image.ref);
        images.push(await answered);
      }
      return images;
    },
    close() {
      for (const waiting of pending.values()) waiting.reject(new Error('The run ended.'));
      pending.clear();
    },
  };
}
