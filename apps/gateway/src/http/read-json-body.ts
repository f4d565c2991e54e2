import type { IncomingMessage } from 'node:http';

/**
 * Reads a request body as JSON, never holding more than `maxBytes`: past the limit it stops
 * collecting and drains the rest, so a huge body cannot grow memory. Rejects with a message the
 * caller can return as a 400.
 */
export function readJsonBody(request: IncomingMessage, maxBytes: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        reject(new Error(`The body is larger than ${maxBytes} bytes.`));
        request.removeAllListeners('data');
        request.resume();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch {
        reject(new Error('The body is not valid JSON.'));
      }
    });
    request.on('error', reject);
  });
}
