import type { IncomingMessage } from 'node:http';
import { readBody } from './read-body.ts';

/**
 * Reads a request body as JSON, never holding more than `maxBytes` (see `readBody`). Rejects with
 * a message the caller can return as a 400.
 */
export async function readJsonBody(request: IncomingMessage, maxBytes: number): Promise<unknown> {
  const bytes = await readBody(request, maxBytes);
  try {
    return JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    throw new Error('The body is not valid JSON.');
  }
}
