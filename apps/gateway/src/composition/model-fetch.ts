import http from 'node:http';
import https from 'node:https';
import { type Readable, Readable as ReadableStatic } from 'node:stream';
import zlib from 'node:zlib';

/** What undici's fetch waits at most for response headers, and between body bytes, before failing. */
const IDLE_LIMIT_MS = 300_000;
/** Statuses whose Response has no body (the Response constructor refuses one). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * The `fetch` the model providers and the embedder are given: the same contract as the global
 * fetch for what they send (a string body to an http(s) URL), over node:http with keep-alive
 * sockets instead of undici's fetch. Under bench:gateway a request through fetch cost ~0.25 ms
 * more CPU (its Request/Response objects, controllers and stream layers), and a turn makes three
 * (chat, memory query embedding, extraction). Everything else — a Request object, a FormData or
 * stream body, a redirect, another scheme — goes to the global fetch unchanged.
 *
 * What callers rely on is kept: a request that never got a response rejects with
 * `TypeError('fetch failed')` whose `cause` is the socket's error (code ECONNREFUSED…), which
 * the AI SDK treats as retryable; an abort rejects with the signal's reason, before the response
 * or while its body is read; gzip and deflate bodies are decoded; a request that finds its
 * reused keep-alive socket closed by the server is sent once more on a fresh one, as it never
 * reached the server.
 */
export function createModelFetch(): typeof globalThis.fetch {
  // As for the global fetch: HTTP_PROXY, HTTPS_PROXY and NO_PROXY count when Node is told to use them.
  const useEnvProxy =
    process.env.NODE_USE_ENV_PROXY === '1' ||
    process.execArgv.includes('--use-env-proxy') ||
    (process.env.NODE_OPTIONS ?? '').split(/\s+/u).includes('--use-env-proxy');
  const options = { keepAlive: true, ...(useEnvProxy ? { proxyEnv: process.env } : {}) };
  const agents = { 'http:': new http.Agent(options), 'https:': new https.Agent(options) };
  const modelFetch = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = typeof input === 'string' ? URL.parse(input) : input instanceof URL ? input : null;
    const body = init?.body ?? undefined;
    if (
      url === null ||
      (url.protocol !== 'http:' && url.protocol !== 'https:') ||
      (body !== undefined && typeof body !== 'string') ||
      (init?.redirect !== undefined && init.redirect !== 'follow')
    )
      return globalThis.fetch(input, init);
    return send(url, body, init, agents[url.protocol], () => globalThis.fetch(input, init));
  };
  return modelFetch as typeof globalThis.fetch;
}

function send(
  url: URL,
  body: string | undefined,
  init: RequestInit | undefined,
  agent: http.Agent,
  viaFetch: () => Promise<Response>,
): Promise<Response> {
  const signal = init?.signal ?? undefined;
  if (signal?.aborted) return Promise.reject(signal.reason);
  const method = (init?.method ?? 'GET').toUpperCase();
  const headers = requestHeaders(init?.headers, body);
  return new Promise((resolve, reject) => {
    const attempt = (mayResend: boolean) => {
      const request = (url.protocol === 'https:' ? https : http).request(url, { method, headers, agent });
      let response: http.IncomingMessage | undefined;
      const onAbort = () => {
        const reason = signal?.reason;
        if (response) response.destroy(reason);
        request.destroy(reason);
        if (!response) reject(reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const stopListening = () => signal?.removeEventListener('abort', onAbort);
      request.setTimeout(IDLE_LIMIT_MS, () =>
        request.destroy(Object.assign(new Error('The model server went quiet.'), { code: 'ETIMEDOUT' })),
      );
      request.on('error', (error: NodeJS.ErrnoException) => {
        if (response) return;
        stopListening();
        if (signal?.aborted) return;
        if (mayResend && request.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE')) {
          attempt(false);
          return;
        }
        reject(new TypeError('fetch failed', { cause: error }));
      });
      request.on('response', (incoming) => {
        response = incoming;
        const status = incoming.statusCode ?? 0;
        if (status >= 300 && status < 400 && incoming.headers.location !== undefined) {
          // Redirects are rare for a model API: the global fetch follows them as before.
          stopListening();
          incoming.resume();
          resolve(viaFetch());
          return;
        }
        incoming.once('close', stopListening);
        const decoded = decodedBody(incoming);
        decoded.on('error', () => {});
        const hasBody = method !== 'HEAD' && !NULL_BODY_STATUSES.has(status);
        if (!hasBody) incoming.resume();
        resolve(
          new Response(hasBody ? (ReadableStatic.toWeb(decoded) as ReadableStream<Uint8Array>) : null, {
            status,
            statusText: incoming.statusMessage ?? '',
            headers: responseHeaders(incoming.rawHeaders),
          }),
        );
      });
      request.end(body);
    };
    attempt(true);
  });
}

/** The caller's headers as node:http takes them, with what fetch would add when they are missing. */
function requestHeaders(given: RequestInit['headers'], body: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  if (given instanceof Headers || Array.isArray(given)) {
    for (const [name, value] of new Headers(given)) headers[name] = value;
  } else if (given) {
    for (const name of Object.keys(given)) {
      const value = (given as Record<string, string | undefined>)[name];
      if (value !== undefined) headers[name.toLowerCase()] = value;
    }
  }
  headers.accept ??= '*/*';
  headers['accept-encoding'] ??= 'gzip, deflate';
  headers['user-agent'] ??= 'node';
  if (body !== undefined) {
    headers['content-type'] ??= 'text/plain;charset=UTF-8';
    headers['content-length'] = String(Buffer.byteLength(body));
  }
  return headers;
}

function responseHeaders(raw: readonly string[]): Headers {
  const headers = new Headers();
  for (let index = 0; index + 1 < raw.length; index += 2) headers.append(raw[index]!, raw[index + 1]!);
  return headers;
}

/** The body as the server meant it: gzip and deflate undone, as fetch does (other codings pass as sent). */
function decodedBody(incoming: http.IncomingMessage): Readable {
  const coding = incoming.headers['content-encoding']?.trim().toLowerCase();
  const decoder =
    coding === 'gzip' || coding === 'x-gzip'
      ? zlib.createGunzip({ flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH })
      : coding === 'deflate'
        ? zlib.createInflate({ flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH })
        : undefined;
  if (!decoder) return incoming;
  incoming.on('error', (error) => decoder.destroy(error));
  decoder.on('close', () => {
    if (!incoming.readableEnded) incoming.destroy();
  });
  return incoming.pipe(decoder);
}
