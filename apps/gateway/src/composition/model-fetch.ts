import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import type { Dispatcher } from 'undici';

/** What the model client waits at most for response headers, and between body bytes, before failing. */
const IDLE_LIMIT_MS = 300_000;
/** Statuses whose Response has no body (the Response constructor refuses one). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * The `fetch` the model providers and the embedder are given: the same contract as the global
 * fetch for what they send (a string body to an http(s) URL), over undici's `request` with
 * keep-alive connections instead of its `fetch`. A turn makes up to three such requests (chat,
 * the memory query's embedding, extraction afterwards). Measured on a streamed chat answer,
 * `request` cost 40–90 µs of CPU less per request than node:http, and fetch ~0.25 ms more than
 * node:http (its Request/Response objects, controllers and stream layers); under bench:gateway
 * the switch from node:http took ~0.2 ms of gateway CPU and ~30 KB of allocation off a turn.
 * Everything else — a Request object, a FormData or stream body, a redirect, another scheme —
 * goes to the global fetch unchanged.
 *
 * What callers rely on is kept: a request that never got a response rejects with
 * `TypeError('fetch failed')` whose `cause` is the socket's error (code ECONNREFUSED…), which
 * the AI SDK treats as retryable; an abort rejects with the signal's reason, before the response
 * or while its body is read; gzip and deflate bodies are decoded; a request that finds its
 * kept-alive connection closed by the server is sent once more on a fresh one. With
 * `NODE_USE_ENV_PROXY` (or `--use-env-proxy`), HTTP_PROXY, HTTPS_PROXY and NO_PROXY count as
 * they do for fetch: plain-http targets in absolute form, https ones through a CONNECT tunnel.
 */
export function createModelFetch(): typeof globalThis.fetch {
  const useEnvProxy =
    process.env.NODE_USE_ENV_PROXY === '1' ||
    process.execArgv.includes('--use-env-proxy') ||
    (process.env.NODE_OPTIONS ?? '').split(/\s+/u).includes('--use-env-proxy');
  // Loaded at the first model request, not at start: an idle gateway does not carry undici
  // (about 3 MB of heap and 60 ms of start-up).
  let client: Promise<ModelClient> | undefined;
  const loadClient = async (): Promise<ModelClient> => {
    const undici = await import('undici');
    const limits = { headersTimeout: IDLE_LIMIT_MS, bodyTimeout: IDLE_LIMIT_MS };
    return {
      request: undici.request,
      dispatcher: useEnvProxy
        ? new undici.EnvHttpProxyAgent({ ...limits, proxyTunnel: false })
        : new undici.Agent(limits),
    };
  };
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
    client ??= loadClient();
    return client.then((loaded) => send(url, body, init, loaded, () => globalThis.fetch(input, init)));
  };
  return modelFetch as typeof globalThis.fetch;
}

/** undici's `request` and the keep-alive dispatcher it sends through. */
interface ModelClient {
  request: typeof import('undici').request;
  dispatcher: Dispatcher;
}

async function send(
  url: URL,
  body: string | undefined,
  init: RequestInit | undefined,
  { request, dispatcher }: ModelClient,
  viaFetch: () => Promise<Response>,
): Promise<Response> {
  const signal = init?.signal ?? undefined;
  signal?.throwIfAborted();
  const method = (init?.method ?? 'GET').toUpperCase() as Dispatcher.HttpMethod;
  const headers = requestHeaders(init?.headers, body);
  let answer: Dispatcher.ResponseData;
  for (let attempt = 1; ; attempt += 1) {
    try {
      answer = await request(url, {
        method,
        headers,
        body: body ?? null,
        dispatcher,
        signal: signal ?? null,
      });
      break;
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (attempt === 1 && wasKeptAliveConnectionDropped(error)) continue;
      throw new TypeError('fetch failed', { cause: error });
    }
  }
  const status = answer.statusCode;
  if (status >= 300 && status < 400 && answer.headers.location !== undefined) {
    // Redirects are rare for a model API: the global fetch follows them as before.
    answer.body.resume();
    return viaFetch();
  }
  const hasBody = method !== 'HEAD' && !NULL_BODY_STATUSES.has(status);
  if (!hasBody) answer.body.resume();
  const decoded = hasBody ? decodedBody(answer.body, answer.headers['content-encoding']) : undefined;
  return new Response(decoded ? webStreamOf(decoded) : null, {
    status,
    statusText: answer.statusText ?? '',
    headers: responseHeaders(answer.headers),
  });
}

/**
 * The connection failed before any response, and it had carried an earlier one: the server
 * closed a kept-alive connection as the request went out, so it never reached the server.
 */
function wasKeptAliveConnectionDropped(error: unknown): boolean {
  // undici reports it as its SocketError, with the socket's byte counts (a raw ECONNRESET or
  // EPIPE comes without them, so whether the connection was reused cannot be told).
  const failure = error as { code?: unknown; socket?: { bytesRead?: number } } | null;
  return failure?.code === 'UND_ERR_SOCKET' && (failure.socket?.bytesRead ?? 0) > 0;
}

/** The caller's headers as a plain object, with what fetch would add when they are missing. */
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

/**
 * The response's headers for the Response to take as its init: a plain name → value record, or
 * name/value pairs when a header repeats (set-cookie), one pair per value. Not a Headers object:
 * the Response would validate and sort a second copy of it (about 1 % of the gateway's main
 * thread under bench:gateway, 3 model requests a turn). A record rather than pairs when it can:
 * the Response's init conversion copies every pair into an array of its own, and a response with
 * a record allocated about half as much (9.5 against 4.7 KB, seven headers, built and read once).
 */
function responseHeaders(
  given: Dispatcher.ResponseData['headers'],
): Record<string, string> | [string, string][] {
  const record: Record<string, string> = {};
  for (const name of Object.keys(given)) {
    const value = given[name];
    if (Array.isArray(value)) return responseHeaderPairs(given);
    if (value !== undefined) record[name] = value;
  }
  return record;
}

function responseHeaderPairs(given: Dispatcher.ResponseData['headers']): [string, string][] {
  const headers: [string, string][] = [];
  for (const name of Object.keys(given)) {
    const value = given[name];
    if (Array.isArray(value)) for (const each of value) headers.push([name, each]);
    else if (value !== undefined) headers.push([name, value]);
  }
  return headers;
}

/** The body as the server meant it: gzip and deflate undone, as fetch does (other codings pass as sent). */
function decodedBody(body: Readable, contentEncoding: string | string[] | undefined): Readable {
  const coding = (Array.isArray(contentEncoding) ? contentEncoding.at(-1) : contentEncoding)
    ?.trim()
    .toLowerCase();
  const decoder =
    coding === 'gzip' || coding === 'x-gzip'
      ? zlib.createGunzip({ flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH })
      : coding === 'deflate'
        ? zlib.createInflate({ flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH })
        : undefined;
  if (!decoder) return body;
  body.on('error', (error) => decoder.destroy(error));
  decoder.on('close', () => {
    if (!body.readableEnded) body.destroy();
  });
  return body.pipe(decoder);
}

/**
 * The body as a web stream that reads on as its consumer pulls. Not `Readable.toWeb`: on undici's
 * body a cancel (a caller dropping an error response's body) could still see a chunk arrive and
 * throw from inside the stream, uncaught.
 */
function webStreamOf(body: Readable): ReadableStream<Uint8Array> {
  let settled = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      body.on('data', (chunk: Buffer) => {
        if (settled) return;
        controller.enqueue(chunk);
        if ((controller.desiredSize ?? 0) <= 0) body.pause();
      });
      body.once('end', () => {
        if (settled) return;
        settled = true;
        controller.close();
      });
      body.once('error', (error) => {
        if (settled) return;
        settled = true;
        controller.error(error);
      });
    },
    pull() {
      body.resume();
    },
    cancel(reason) {
      settled = true;
      body.on('error', () => {}).destroy(reason instanceof Error ? reason : undefined);
    },
  });
}
