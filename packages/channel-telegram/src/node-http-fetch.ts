import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { ApiClientOptions } from 'grammy';
import { requestBodyBytes } from './request-body-bytes.ts';

type GrammyFetch = NonNullable<ApiClientOptions['fetch']>;

interface GrammyRequestInit {
  method?: string;
  headers?: Record<string, string>;
  body?: unknown;
  signal?: {
    aborted: boolean;
    addEventListener(type: 'abort', listener: () => void): void;
    removeEventListener(type: 'abort', listener: () => void): void;
  } | null;
}

/**
 * The Bot API client's HTTP transport on `node:http(s)` with keep-alive: grammY only needs
 * `res.json()`, and skipping WHATWG streams makes each call several times cheaper than node-fetch
 * or the built-in fetch — it is most of the adapter's CPU per message. JSON bodies, and multipart
 * uploads (reply photos and documents) read whole first; aborts from grammY's signal destroy the request.
 */
export function nodeHttpFetch(options: { maxSockets?: number } = {}): GrammyFetch {
  const agents = {
    'http:': new HttpAgent({ keepAlive: true, maxSockets: options.maxSockets ?? 64 }),
    'https:': new HttpsAgent({ keepAlive: true, maxSockets: options.maxSockets ?? 64 }),
  };
  const call = async (url: string, init: GrammyRequestInit = {}) => {
    const body = await requestBodyBytes(init.body);
    return new Promise<{ status: number; json(): Promise<unknown> }>((resolve, reject) => {
      const target = new URL(url);
      const agent = target.protocol === 'https:' ? agents['https:'] : agents['http:'];
      const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
      const headers: Record<string, string | number> = { ...init.headers };
      delete headers.connection;
      if (body) headers['content-length'] = body.byteLength;
      const signal = init.signal ?? undefined;
      const onAbort = () => request.destroy(new Error('The operation was aborted'));
      const request = send(
        target,
        { method: init.method ?? 'GET', headers, agent },
        (response: IncomingMessage) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', reject);
          response.on('end', () => {
            signal?.removeEventListener('abort', onAbort);
            const text = Buffer.concat(chunks).toString('utf8');
            resolve({
              status: response.statusCode ?? 0,
              json: async () => JSON.parse(text) as unknown,
            });
          });
        },
      );
      request.on('error', (error) => {
        signal?.removeEventListener('abort', onAbort);
        reject(error);
      });
      if (signal?.aborted) {
        onAbort();
        return;
      }
      signal?.addEventListener('abort', onAbort);
      request.end(body);
    });
  };
  return call as unknown as GrammyFetch;
}
