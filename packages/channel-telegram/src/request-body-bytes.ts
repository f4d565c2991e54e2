/**
 * The bytes of a body grammY hands its fetch: a JSON string for ordinary calls, a stream of
 * multipart chunks (a Node Readable, async-iterable) when a file is uploaded. Uploads are read
 * whole before sending: they are capped at 50 MB, and a known length is what the Bot API expects.
 */
export async function requestBodyBytes(body: unknown): Promise<Buffer | undefined> {
  if (body === undefined) return undefined;
  if (typeof body === 'string') return Buffer.from(body);
  if (body instanceof Uint8Array) return Buffer.from(body);
  if (typeof body === 'object' && body !== null && Symbol.asyncIterator in body) {
    const chunks: Buffer[] = [];
    for await (const chunk of body as AsyncIterable<Uint8Array | string>) {
      chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk));
    }
    return Buffer.concat(chunks);
  }
  throw new TypeError('Unsupported request body: expected a string or a stream of bytes');
}
