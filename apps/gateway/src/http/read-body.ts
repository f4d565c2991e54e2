import type { IncomingMessage } from 'node:http';

/** The body was over the caller's cap; nothing of it was kept. */
export class BodyTooLarge extends Error {
  constructor(maxBytes: number) {
    super(`The body is larger than ${maxBytes} bytes.`);
    this.name = 'BodyTooLarge';
  }
}

/**
 * Reads a request body, never holding more than `maxBytes`: past the limit it stops collecting,
 * rejects with `BodyTooLarge` and drains the rest, so a huge body cannot grow memory.
 */
export function readBody(request: IncomingMessage, maxBytes: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        request.off('data', onData);
        chunks.length = 0;
        request.resume();
        reject(new BodyTooLarge(maxBytes));
        return;
      }
      chunks.push(chunk);
    };
    request.on('data', onData);
    request.on('end', () => resolve(new Uint8Array(Buffer.concat(chunks))));
    request.on('error', reject);
  });
}
